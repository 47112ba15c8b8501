//! Routes along the street graph: shortest paths (petgraph's A* with the straight-line
//! distance as its estimate) and the turn-by-turn steps of a path.

use petgraph::graph::NodeIndex;

use crate::city::City;
use crate::geom::P;

/// One instruction: follow `street` for `meters`, after turning `turn` ("left", "right",
/// "straight"; the first step's is the compass heading, "north", ...).
#[derive(Debug, Clone, PartialEq)]
pub struct RouteStep {
    pub street: String,
    pub turn: String,
    pub meters: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// The path's points, first to last node.
    pub points: Vec<P>,
    pub meters: f64,
    pub steps: Vec<RouteStep>,
}

fn heading(a: P, b: P) -> &'static str {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    if dx.abs() > dy.abs() {
        if dx > 0.0 {
            "east"
        } else {
            "west"
        }
    } else if dy > 0.0 {
        "south"
    } else {
        "north"
    }
}

/// The turn from direction a→b onto b→c (y grows south, so a positive cross product is a
/// right turn).
fn turn(a: P, b: P, c: P) -> &'static str {
    let (ux, uy) = (b.x - a.x, b.y - a.y);
    let (vx, vy) = (c.x - b.x, c.y - b.y);
    let cross = ux * vy - uy * vx;
    let norm = (ux.hypot(uy) * vx.hypot(vy)).max(1e-9);
    let sin = cross / norm;
    if sin.abs() < 0.35 {
        "straight"
    } else if sin > 0.0 {
        "right"
    } else {
        "left"
    }
}

impl City {
    /// The shortest route along the streets between two nodes; `None` when they are not
    /// connected.
    pub fn route_nodes(&self, from: usize, to: usize) -> Option<Route> {
        let g = &self.graph.g;
        if from >= g.node_count() || to >= g.node_count() {
            return None;
        }
        let goal = g[NodeIndex::new(to)];
        let (meters, path) = petgraph::algo::astar(g, NodeIndex::new(from), |n| n.index() == to, |e| e.weight().len, |n| g[n].dist(goal))?;
        let points: Vec<P> = path.iter().map(|n| g[*n]).collect();
        // The street of each hop: the shortest edge between its two nodes.
        let hops: Vec<usize> = path
            .windows(2)
            .map(|w| {
                g.edges_connecting(w[0], w[1]).min_by(|a, b| a.weight().len.total_cmp(&b.weight().len)).map_or(0, |e| e.weight().street)
            })
            .collect();
        let mut steps: Vec<RouteStep> = Vec::new();
        for (i, &s) in hops.iter().enumerate() {
            let name = &self.streets[s].name;
            let len = points[i].dist(points[i + 1]);
            match steps.last_mut() {
                Some(last) if &last.street == name => last.meters += len,
                _ => {
                    let t = if i == 0 { heading(points[0], points[1]) } else { turn(points[i - 1], points[i], points[i + 1]) };
                    steps.push(RouteStep { street: name.clone(), turn: t.to_owned(), meters: len });
                }
            }
        }
        Some(Route { points, meters, steps })
    }

    /// The route between two places (id 0 is the user's location).
    pub fn route(&self, from: i64, to: i64) -> Option<Route> {
        let node = |id: i64| if id == 0 { Some(self.home_node) } else { self.pin(id).map(|p| p.node) };
        self.route_nodes(node(from)?, node(to)?)
    }
}
