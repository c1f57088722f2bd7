# tests/layers/module.mk - checks of the build itself: the layers the module.mk files declare.
CHECK_STEPS += tests/layers/check-layers.sh
