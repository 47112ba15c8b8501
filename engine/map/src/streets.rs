//! The street network: the streets as runs through the city's nodes, and the graph routes
//! follow (node indices equal the city's node indices).

use petgraph::graph::{NodeIndex, UnGraph};

use crate::geom::P;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StreetKind {
    Side,
    Avenue,
    /// The road along the bay.
    Shore,
}

/// One run of a named street through the nodes (a street cut by a dropped block or the water
/// has several runs of the same name).
#[derive(Debug, Clone)]
pub struct Street {
    pub name: String,
    pub kind: StreetKind,
    pub nodes: Vec<usize>,
}

/// An edge: its length in metres and the street it belongs to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Edge {
    pub(crate) len: f64,
    pub(crate) street: usize,
}

/// The street network; node indices equal the city's node indices.
#[derive(Debug)]
pub(crate) struct Graph {
    pub(crate) g: UnGraph<P, Edge>,
}

impl Graph {
    pub(crate) fn build(nodes: &[P], streets: &[Street]) -> Graph {
        let mut g = UnGraph::with_capacity(nodes.len(), nodes.len() * 2);
        for p in nodes {
            g.add_node(*p);
        }
        for (k, s) in streets.iter().enumerate() {
            for w in s.nodes.windows(2) {
                let len = nodes[w[0]].dist(nodes[w[1]]);
                g.add_edge(NodeIndex::new(w[0]), NodeIndex::new(w[1]), Edge { len, street: k });
            }
        }
        Graph { g }
    }
}
