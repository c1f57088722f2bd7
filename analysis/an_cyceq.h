/* analysis/an_cyceq.h - cycle equivalence (Johnson, Pearson, Pingali, PLDI 1994) in linear time. */
#ifndef AN_CYCEQ_H
#define AN_CYCEQ_H

#include <stdint.h>

/*
 * Two edges of a strongly connected directed graph are cycle equivalent when every cycle
 * contains both or neither. In a control flow graph with an added edge exit -> entry, cycle
 * equivalent blocks and edges execute the same number of times in every run that enters at
 * entry and leaves at exit: DCPI's frequency equivalence classes (SOSP'97 §6.1, "we use an
 * extended version of the cycle equivalence algorithm in [JohPP94]").
 *
 * The algorithm (JPP94 §3, Figure 4): directed cycle equivalence of a strongly connected graph
 * equals undirected cycle equivalence; an undirected depth-first search makes every edge a tree
 * edge or a backedge; the "brackets" of a tree edge are the backedges from its subtree to above
 * it; two tree edges are equivalent iff their bracket sets are equal, and a tree edge and a
 * backedge are iff that backedge is its only bracket. Bracket sets are named in O(1) by (top
 * bracket, size) in a concatenable list, with a "capping" backedge added where brackets from two
 * subtrees leave a node, so that the name stays exact in a branching tree. Node classes come
 * from splitting each node n into n_in -> n_out: n takes that edge's class.
 *
 * Our extension (DCPI's for "CFG's with infinite loops" is not published): nodes reachable from
 * entry that cannot reach exit get, for each exit-less sink strongly connected component, one
 * artificial edge to exit from the component's node first reached by a breadth-first search from
 * entry (its loop header), as libFirm does for block execution estimates (refs §2 remedy (b)).
 * Nodes not reachable from entry, and edges touching them, each get a class of their own.
 *
 * Graphs are given as edge lists: edge i goes from src[i] to dst[i] (node numbers < nnodes).
 * Parallel edges and self-loops are allowed. Classes are numbered densely from 0, in order of
 * first appearance over node 0..nnodes-1, then edge 0..nedges-1.
 */

struct an_cyceq_graph {
	uint32_t nnodes, nedges;
	const uint32_t *src, *dst; /* nedges each */
	uint32_t entry, exit; /* distinct nodes */
};

/*
 * Classes of every node (node_class[nnodes]) and edge (edge_class[nedges]) of g, augmented with
 * exit -> entry and the artificial exit edges described above. *nclasses gets the number of
 * classes. Returns 0, -EINVAL for a malformed graph (a node number out of range, entry == exit),
 * or -ENOMEM.
 */
int an_cyceq_classes(const struct an_cyceq_graph *g, uint32_t *node_class, uint32_t *edge_class,
		     uint32_t *nclasses);

/*
 * The nodes an_cyceq_classes() gives an artificial edge to exit: one per exit-less sink strongly
 * connected component reachable from entry, in increasing node order, into nodes[] (room for
 * g->nnodes); *n gets their number. Returns 0, -EINVAL or -ENOMEM.
 */
int an_cyceq_exitless(const struct an_cyceq_graph *g, uint32_t *nodes, uint32_t *n);

/*
 * The undirected core: classes of the edges of the multigraph {u[i], v[i]} (no direction), for
 * the connected component holding `root`: two edges get the same class iff they are cycle
 * equivalent in the undirected sense. Edges outside that component, self-loops and bridges get
 * classes of their own. Classes are 0..*nclasses-1, not renumbered. Returns 0, -EINVAL or
 * -ENOMEM.
 */
int an_cyceq_undirected(uint32_t nnodes, uint32_t nedges, const uint32_t *u, const uint32_t *v,
			uint32_t root, uint32_t *edge_class, uint32_t *nclasses);

#endif /* AN_CYCEQ_H */
