#!/usr/bin/env python3
# tests/tools/check-json.py - validate axprof --json output against docs/axprof-json.7.
#
# Usage: check-json.py DOC FILE:TOOL...
# The key list and each tool's required keys are read from the manual page itself (sections
# KEYS and DOCUMENTS), so the page and the tools cannot drift apart. Every line of FILE is one
# document: it must be valid UTF-8 and JSON, an object whose "tool" is TOOL, carry the keys the
# page requires of TOOL, and use only documented keys, each with its documented type.
import json
import re
import sys


def read_doc(path):
    keys, required, section, tool = {}, {}, None, None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith(".SH "):
            section = line[4:].strip()
            continue
        if section == "KEYS":
            m = re.match(r"^\\fB([a-z0-9_]+)\\fR \(([a-z ]+)\)$", line)
            if m:
                keys[m.group(1)] = m.group(2).split()
        elif section == "DOCUMENTS":
            m = re.match(r"^\.B ([a-z]+)$", line)
            if m:
                tool = m.group(1)
            m = re.match(r"^required: (.*)$", line)
            if m and tool:
                required[tool] = m.group(1).split()
    return keys, required


def is_hex(v):
    return isinstance(v, str) and re.fullmatch(r"0x[0-9a-f]+", v) is not None


def type_ok(t, v):
    if t == "string":
        return isinstance(v, str)
    if t == "hex":
        return is_hex(v)
    if t == "number":
        return (isinstance(v, (int, float)) and not isinstance(v, bool)) or v is None
    if t == "boolean":
        return isinstance(v, bool)
    if t == "node":
        return (isinstance(v, int) and not isinstance(v, bool)) or v in ("entry", "exit")
    if t in ("object", "map"):
        return isinstance(v, dict)
    if t == "array":
        return isinstance(v, list)
    return False


class Checker:
    def __init__(self, keys, required):
        self.keys, self.required, self.errors, self.used = keys, required, [], set()

    def err(self, where, msg):
        self.errors.append("%s: %s" % (where, msg))

    def value(self, where, key, v):
        spec = self.keys.get(key)
        if spec is None:
            self.err(where, "key '%s' is not documented in axprof-json.7" % key)
            return
        self.used.add(key)
        if "or" in spec:  # "(number or array)": a key two tools use with different types
            alts = [t for t in spec if t != "or"]
            spec = [next((t for t in alts if type_ok(t, v)), alts[0])]
        if not type_ok(spec[0], v):
            self.err(where, "'%s' should be %s, is %r" % (key, " ".join(spec), v))
            return
        if spec[0] == "map":
            for name, member in v.items():
                if not type_ok(spec[1], member):
                    self.err(where, "'%s.%s' should be %s" % (key, name, spec[1]))
                elif spec[1] == "object":
                    self.obj("%s.%s.%s" % (where, key, name), member)
        elif spec[0] == "object":
            self.obj(where + "." + key, v)
        elif spec[0] == "array":
            for i, item in enumerate(v):
                if isinstance(item, dict):
                    self.obj("%s.%s[%d]" % (where, key, i), item)
                elif not isinstance(item, (str, int, float)) or isinstance(item, bool):
                    self.err(where, "'%s' holds %r" % (key, item))

    def obj(self, where, o):
        for k, v in o.items():
            self.value(where, k, v)

    def document(self, where, tool, doc):
        if not isinstance(doc, dict):
            self.err(where, "not a JSON object")
            return
        if doc.get("tool") != tool:
            self.err(where, "\"tool\" is %r, not %r" % (doc.get("tool"), tool))
        for k in self.required.get(tool, []):
            if k not in doc:
                self.err(where, "required key '%s' missing" % k)
        if tool not in self.required:
            self.err(where, "tool '%s' has no DOCUMENTS entry in axprof-json.7" % tool)
        self.obj(where, doc)


def main():
    if len(sys.argv) < 3:
        print("usage: check-json.py DOC FILE:TOOL...", file=sys.stderr)
        return 2
    keys, required = read_doc(sys.argv[1])
    if len(keys) < 50 or len(required) < 13:
        print("check-json: could not read the key list from %s (%d keys, %d tools)"
              % (sys.argv[1], len(keys), len(required)), file=sys.stderr)
        return 1
    c = Checker(keys, required)
    ndocs = 0
    for arg in sys.argv[2:]:
        path, tool = arg.rsplit(":", 1)
        raw = open(path, "rb").read()
        try:
            text = raw.decode("utf-8", errors="strict")
        except UnicodeDecodeError as e:
            c.err(path, "not valid UTF-8: %s" % e)
            continue
        lines = text.split("\n")
        if lines[-1] != "" or len(lines) < 2:
            c.err(path, "no document, or the last one lacks its newline")
        for n, line in enumerate(lines[:-1], 1):
            try:
                doc = json.loads(line)
            except ValueError as e:
                c.err("%s:%d" % (path, n), "not JSON: %s" % e)
                continue
            c.document("%s:%d" % (path, n), tool, doc)
            ndocs += 1
    for e in c.errors[:40]:
        print("check-json: " + e, file=sys.stderr)
    if c.errors:
        return 1
    print("check-json: %d documents, %d of %d documented keys used" % (ndocs, len(c.used), len(keys)))
    return 0


sys.exit(main())
