//! The city: a warped grid of avenues and side streets (tilted, with dropped side-street
//! blocks and a diagonal), a bay with a shore road, blocks, parks, squares, transit lines and
//! the app's places, all drawn from the seeded RNG. Addresses of the places name the streets.

use std::collections::{BTreeMap, BTreeSet};

use phoneworld_data::Rng;

use crate::geom::{self, P};
use crate::names::{self, Address};
use crate::streets::{Graph, Street, StreetKind};

/// A place of the app's content, as the map needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlaceInput {
    pub id: i64,
    pub name: String,
    pub category: String,
    pub address: String,
}

/// A named polygon (park, square, water).
#[derive(Debug, Clone)]
pub struct Area {
    pub name: String,
    pub poly: Vec<P>,
}

#[derive(Debug, Clone)]
pub struct TransitLine {
    pub name: String,
    pub color: [u8; 3],
    pub nodes: Vec<usize>,
    /// Station nodes and their names (the cross street).
    pub stations: Vec<(usize, String)>,
}

/// A place drawn on the map: `pos` is where its pin stands (beside the street), `node` is
/// its address on the street graph.
#[derive(Debug, Clone)]
pub struct Pin {
    pub id: i64,
    pub name: String,
    pub category: String,
    pub pos: P,
    pub node: usize,
}

#[derive(Debug)]
pub struct City {
    pub seed: u64,
    /// blake3 of the seed and the inputs: the city's identity in tile caches.
    pub key: [u8; 32],
    pub nodes: Vec<P>,
    pub streets: Vec<Street>,
    pub blocks: Vec<Vec<P>>,
    pub parks: Vec<Area>,
    pub squares: Vec<Area>,
    /// Piers reaching into the bay.
    pub piers: Vec<Area>,
    pub water: Area,
    pub lines: Vec<TransitLine>,
    pub pins: Vec<Pin>,
    /// The user's location (the home address) and its node.
    pub home: P,
    pub home_node: usize,
    pub bounds: (P, P),
    pub(crate) graph: Graph,
}

const COLS: usize = 16;
const MIN_ROWS: usize = 20;
const MAX_ROWS: usize = 36;
/// How far a pin stands beside its street, metres.
const PIN_OFFSET: f64 = 16.0;
const TRANSIT_COLORS: [[u8; 3]; 4] = [[0x1a, 0x73, 0xe8], [0xe3, 0x74, 0x00], [0x0f, 0x9d, 0x58], [0x9c, 0x27, 0xb0]];

fn uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * rng.next_f64()
}

fn shuffle<T>(rng: &mut Rng, v: &mut [T]) {
    for i in (1..v.len()).rev() {
        v.swap(i, rng.below(i + 1));
    }
}

/// The bay's shoreline: the water lies east of `x = shore(y)`.
struct Shore {
    base: f64,
    phase: (f64, f64),
}

impl Shore {
    fn x(&self, y: f64) -> f64 {
        self.base + 180.0 * (y / 600.0 + self.phase.0).sin() + 60.0 * (y / 220.0 + self.phase.1).sin()
    }
}

/// A named street before it is cut into runs: its grid nodes in order.
struct Line {
    kind: StreetKind,
    /// Runs of node ids.
    runs: Vec<Vec<usize>>,
    name: String,
    /// Where names go first: the shore road wants a waterfront name, the diagonal "Market".
    role: Role,
}

#[derive(PartialEq)]
enum Role {
    Grid,
    Shore,
    Diagonal,
}

impl City {
    /// The city for a seed. `places` are pinned at their addresses, whose streets the city
    /// names; `home_address` is the user's location.
    pub fn generate(seed: u64, places: &[PlaceInput], home_address: &str) -> City {
        let mut rng = Rng::new(seed ^ 0x6d61_7073_6369_7479);
        let mut key = blake3::Hasher::new();
        key.update(&seed.to_le_bytes());
        for p in places {
            key.update(&p.id.to_le_bytes());
            for s in [&p.name, &p.category, &p.address] {
                key.update(&(s.len() as u64).to_le_bytes());
                key.update(s.as_bytes());
            }
        }
        key.update(home_address.as_bytes());

        // Streets the content names (sorted: the order must not depend on the content's order
        // beyond what the seed shuffles).
        let mut named: BTreeSet<String> = BTreeSet::new();
        let mut landmarks: BTreeSet<String> = BTreeSet::new();
        for a in places.iter().map(|p| p.address.as_str()).chain([home_address]) {
            match names::parse_address(a) {
                Some(Address::Street { street, .. }) => {
                    named.insert(street);
                }
                Some(Address::Landmark(l)) => {
                    landmarks.insert(l);
                }
                None => {}
            }
        }
        let rows = named.len().saturating_sub(COLS + 1).clamp(MIN_ROWS, MAX_ROWS);

        // The warped grid: uneven spacing, each line tilted a little, nodes jittered.
        let mut xs = Vec::with_capacity(COLS);
        let mut x = 0.0;
        for _ in 0..COLS {
            xs.push(x);
            x += uniform(&mut rng, 170.0, 250.0);
        }
        let mut ys = Vec::with_capacity(rows);
        let mut y = 0.0;
        for _ in 0..rows {
            ys.push(y);
            y += uniform(&mut rng, 120.0, 170.0);
        }
        let (mx, my) = (xs[COLS - 1] / 2.0, ys[rows - 1] / 2.0);
        xs.iter_mut().for_each(|x| *x -= mx);
        ys.iter_mut().for_each(|y| *y -= my);
        let tilt_v: Vec<f64> = (0..COLS).map(|_| uniform(&mut rng, -0.07, 0.07)).collect();
        let tilt_h: Vec<f64> = (0..rows).map(|_| uniform(&mut rng, -0.06, 0.06)).collect();
        // Any angle will do for the phases; the literal keeps the cities of existing seeds.
        #[allow(clippy::approx_constant, reason = "a range of angles, not the constant")]
        let shore = Shore {
            base: xs[COLS - 1] - uniform(&mut rng, 250.0, 420.0),
            phase: (uniform(&mut rng, 0.0, 6.28), uniform(&mut rng, 0.0, 6.28)),
        };

        let mut nodes: Vec<P> = Vec::new();
        let mut grid = vec![vec![None; rows]; COLS];
        for i in 0..COLS {
            for j in 0..rows {
                let p = P::new(
                    xs[i] + tilt_v[i] * ys[j] + uniform(&mut rng, -10.0, 10.0),
                    ys[j] + tilt_h[j] * xs[i] + uniform(&mut rng, -10.0, 10.0),
                );
                if p.x < shore.x(p.y) - 90.0 {
                    grid[i][j] = Some(nodes.len());
                    nodes.push(p);
                }
            }
        }

        let mut lines: Vec<Line> = Vec::new();
        for (i, col) in grid.iter().enumerate() {
            let kind = if i % 3 == 1 { StreetKind::Avenue } else { StreetKind::Side };
            lines.push(Line { kind, runs: runs(col.iter().copied(), |_| true), name: String::new(), role: Role::Grid });
        }
        // Shore road nodes, one per row, and the rows that reach them.
        let mut shore_nodes = Vec::new();
        for j in 0..rows {
            let kind = if j % 4 == 1 { StreetKind::Avenue } else { StreetKind::Side };
            let row: Vec<Option<usize>> = grid.iter().map(|col| col[j]).collect();
            let last = row.iter().rposition(Option::is_some);
            // Side streets lose a block here and there (never their last one, to the shore).
            let keep: Vec<bool> = (0..COLS).map(|i| kind == StreetKind::Avenue || Some(i + 1) >= last || rng.next_f64() > 0.16).collect();
            let mut rs = runs(row.iter().copied(), |i| keep[i]);
            if let Some(last) = last.and_then(|l| row[l]) {
                let end = nodes[last];
                let sy = end.y + uniform(&mut rng, -15.0, 15.0);
                let h = P::new(shore.x(sy) - 55.0, sy);
                let id = nodes.len();
                nodes.push(h);
                shore_nodes.push(id);
                if let Some(run) = rs.iter_mut().find(|r| r.last() == Some(&last)) {
                    run.push(id);
                }
            }
            lines.push(Line { kind, runs: rs, name: String::new(), role: Role::Grid });
        }
        lines.push(Line { kind: StreetKind::Shore, runs: vec![shore_nodes.clone()], name: String::new(), role: Role::Shore });
        // A diagonal avenue across the grid, south-east from the west edge.
        let j0 = 1 + rng.below(3);
        let diagonal: Vec<usize> = (0..COLS.min(rows - j0)).map_while(|k| grid[k][j0 + k]).collect();
        if diagonal.len() >= 3 {
            lines.push(Line { kind: StreetKind::Avenue, runs: vec![diagonal], name: String::new(), role: Role::Diagonal });
        }

        // Lines the bay swallowed get no name.
        lines.retain(|l| !l.runs.is_empty());
        name_lines(&mut lines, &named, &mut rng);

        // Blocks: every grid cell with its four corners on land.
        let mut cells: Vec<((usize, usize), Vec<P>)> = Vec::new();
        for i in 0..COLS - 1 {
            for j in 0..rows - 1 {
                if let (Some(a), Some(b), Some(c), Some(d)) = (grid[i][j], grid[i + 1][j], grid[i + 1][j + 1], grid[i][j + 1]) {
                    cells.push(((i, j), vec![nodes[a], nodes[b], nodes[c], nodes[d]]));
                }
            }
        }

        // Places on their streets: (line, distance along its runs) or a landmark node.
        let mut by_name: BTreeMap<&str, usize> = BTreeMap::new();
        for (k, l) in lines.iter().enumerate() {
            by_name.entry(l.name.as_str()).or_insert(k);
        }
        let mut landmark_nodes: BTreeMap<String, (usize, bool)> = BTreeMap::new();
        let interior: Vec<usize> = (2..COLS - 3).flat_map(|i| (2..rows - 2).map(move |j| (i, j))).filter_map(|(i, j)| grid[i][j]).collect();
        for l in &landmarks {
            let pier = l.starts_with("Pier ") && !shore_nodes.is_empty();
            let node = if pier {
                shore_nodes[1 + rng.below(shore_nodes.len().saturating_sub(2).max(1))]
            } else {
                interior[rng.below(interior.len())]
            };
            landmark_nodes.insert(l.clone(), (node, pier));
        }
        let mut inserts: Vec<Insert> = Vec::new();
        let mut pins = Vec::new();
        let mut at_landmark: BTreeMap<String, usize> = BTreeMap::new();
        let mut place_on = |address: &str, nodes: &mut Vec<P>, inserts: &mut Vec<Insert>, rng: &mut Rng| -> Option<(P, usize)> {
            match names::parse_address(address)? {
                Address::Street { number, street } => {
                    let line = &lines[*by_name.get(street.as_str())?];
                    let pts: Vec<Vec<P>> = line.runs.iter().map(|r| r.iter().map(|&n| nodes[n]).collect()).collect();
                    let total: f64 = pts.iter().map(|p| geom::length(p)).sum();
                    let mut d = match number {
                        Some(n) => 40.0 + (total - 80.0).max(0.0) * f64::from(n.min(1000)) / 1000.0,
                        None => total * uniform(rng, 0.35, 0.65),
                    };
                    let run = pts.iter().position(|p| {
                        let l = geom::length(p);
                        d <= l || {
                            d -= l;
                            false
                        }
                    })?;
                    let (on, seg, (dx, dy)) = geom::along(&pts[run], d);
                    let side = if number.is_some_and(|n| n % 2 == 0) { 1.0 } else { -1.0 };
                    let id = nodes.len();
                    nodes.push(on);
                    inserts.push(Insert { line: *by_name.get(street.as_str())?, run, seg, along: on, node: id });
                    Some((P::new(on.x - dy * PIN_OFFSET * side, on.y + dx * PIN_OFFSET * side), id))
                }
                Address::Landmark(l) => {
                    let (node, _) = *landmark_nodes.get(&l)?;
                    let k = at_landmark.entry(l).or_insert(0);
                    *k += 1;
                    let angle = *k as f64 * 2.4;
                    let c = nodes[node];
                    Some((P::new(c.x + 30.0 * angle.cos(), c.y + 30.0 * angle.sin()), node))
                }
            }
        };
        let (home, home_node) = place_on(home_address, &mut nodes, &mut inserts, &mut rng).unwrap_or((nodes[0], 0));
        for p in places {
            if let Some((pos, node)) = place_on(&p.address, &mut nodes, &mut inserts, &mut rng) {
                pins.push(Pin { id: p.id, name: p.name.clone(), category: p.category.clone(), pos, node });
            }
        }
        apply_inserts(&mut lines, &nodes, inserts);

        // Parks: a block beside each park place, and a few more.
        let mut parks = Vec::new();
        let mut used = BTreeSet::new();
        for pin in pins.iter().filter(|p| p.category == "Parks") {
            let best = cells
                .iter()
                .filter(|(c, _)| !used.contains(c))
                .min_by(|a, b| centroid(&a.1).dist(pin.pos).total_cmp(&centroid(&b.1).dist(pin.pos)));
            if let Some((c, poly)) = best {
                used.insert(*c);
                parks.push(Area { name: pin.name.clone(), poly: poly.clone() });
            }
        }
        for name in names::PARK_POOL.iter().take(3) {
            let free: Vec<&((usize, usize), Vec<P>)> = cells.iter().filter(|(c, _)| !used.contains(c)).collect();
            if free.is_empty() {
                break;
            }
            let (c, poly) = free[rng.below(free.len())];
            used.insert(*c);
            parks.push(Area { name: (*name).to_owned(), poly: poly.clone() });
        }
        let blocks = cells.iter().filter(|(c, _)| !used.contains(c)).map(|(_, p)| p.clone()).collect();

        // Squares and piers at the landmarks.
        let mut squares = Vec::new();
        let mut piers = Vec::new();
        for (name, (node, pier)) in &landmark_nodes {
            let c = nodes[*node];
            if *pier {
                let (x0, x1) = (c.x + 20.0, c.x + 260.0);
                piers.push(Area {
                    name: name.clone(),
                    poly: vec![P::new(x0, c.y - 22.0), P::new(x1, c.y - 22.0), P::new(x1, c.y + 22.0), P::new(x0, c.y + 22.0)],
                });
            } else {
                let r = 45.0;
                squares.push(Area {
                    name: name.clone(),
                    poly: vec![P::new(c.x - r, c.y - r), P::new(c.x + r, c.y - r), P::new(c.x + r, c.y + r), P::new(c.x - r, c.y + r)],
                });
            }
        }

        let streets: Vec<Street> = lines
            .iter()
            .flat_map(|l| l.runs.iter().filter(|r| r.len() >= 2).map(|r| Street { name: l.name.clone(), kind: l.kind, nodes: r.clone() }))
            .collect();

        // Rail lines along the diagonal and an avenue row, stations at every third crossing.
        let crossing_names = crossing_names(&streets, nodes.len());
        let mut transit = Vec::new();
        let carriers: Vec<&Street> = {
            let mut c: Vec<&Street> = streets.iter().filter(|s| s.kind == StreetKind::Avenue && s.nodes.len() > 6).collect();
            c.sort_by_key(|s| std::cmp::Reverse(s.nodes.len()));
            c
        };
        for (k, s) in carriers.iter().take(2).enumerate() {
            let stops: Vec<(usize, String)> = s
                .nodes
                .iter()
                .filter_map(|&n| crossing_names[n].iter().find(|c| **c != s.name).map(|c| (n, c.clone())))
                .enumerate()
                .filter(|(i, _)| i % 3 == 1)
                .map(|(_, x)| x)
                .collect();
            let name = if k == 0 { "Tram F" } else { "Metro N" };
            transit.push(TransitLine { name: name.to_owned(), color: TRANSIT_COLORS[k], nodes: s.nodes.clone(), stations: stops });
        }

        let mut water_poly = Vec::new();
        let (lo, hi) = geom::bbox(&nodes);
        let (y0, y1) = (lo.y - 1500.0, hi.y + 1500.0);
        let mut yy = y0;
        while yy <= y1 {
            water_poly.push(P::new(shore.x(yy), yy));
            yy += 25.0;
        }
        water_poly.push(P::new(hi.x + 3000.0, y1));
        water_poly.push(P::new(hi.x + 3000.0, y0));
        let water = Area { name: "Bayport Bay".to_owned(), poly: water_poly };

        let graph = Graph::build(&nodes, &streets);
        City {
            seed,
            key: *key.finalize().as_bytes(),
            bounds: (P::new(lo.x - 300.0, lo.y - 300.0), P::new(hi.x + 600.0, hi.y + 300.0)),
            nodes,
            streets,
            blocks,
            parks,
            squares,
            piers,
            water,
            lines: transit,
            pins,
            home,
            home_node,
            graph,
        }
    }

    pub fn pin(&self, id: i64) -> Option<&Pin> {
        self.pins.iter().find(|p| p.id == id)
    }
}

/// Consecutive kept nodes: `keep(i)` false cuts the segment from node i to node i+1.
fn runs(nodes: impl Iterator<Item = Option<usize>>, keep: impl Fn(usize) -> bool) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new()];
    for (i, n) in nodes.enumerate() {
        match n {
            Some(n) => {
                if let Some(cur) = out.last_mut() {
                    cur.push(n);
                }
                if !keep(i) {
                    out.push(vec![n]);
                }
            }
            None => out.push(Vec::new()),
        }
    }
    out.retain(|r| r.len() >= 2);
    out
}

/// Names every line: waterfront and "Market" names where they fit, the content's other names
/// shuffled onto avenues (avenue-like names first) and side streets, then the pool.
fn name_lines(lines: &mut [Line], named: &BTreeSet<String>, rng: &mut Rng) {
    let mut left: Vec<String> = named.iter().cloned().collect();
    let take = |pred: &dyn Fn(&str) -> bool, left: &mut Vec<String>| left.iter().position(|n| pred(n)).map(|i| left.remove(i));
    for l in lines.iter_mut() {
        l.name = match l.role {
            Role::Shore => ["Harbor", "Marina", "Bay", "Riverside"]
                .iter()
                .find_map(|k| take(&|n: &str| n.contains(k), &mut left))
                .unwrap_or_else(|| "Embarcadero".to_owned()),
            Role::Diagonal => take(&|n: &str| n.contains("Market"), &mut left).unwrap_or_default(),
            Role::Grid => String::new(),
        };
    }
    shuffle(rng, &mut left);
    let (mut avenues, mut sides): (Vec<String>, Vec<String>) = left.into_iter().partition(|n| names::is_avenue(n));
    let mut pool = names::POOL.iter().filter(|n| !named.contains(**n)).map(|n| (*n).to_owned());
    let mut order: Vec<usize> = (0..lines.len()).filter(|&k| lines[k].name.is_empty()).collect();
    // Avenues take names first, so avenue-like names land on avenues.
    order.sort_by_key(|&k| lines[k].kind != StreetKind::Avenue);
    for k in order {
        let wants_avenue = lines[k].kind == StreetKind::Avenue;
        let name = if wants_avenue { avenues.pop().or_else(|| sides.pop()) } else { sides.pop().or_else(|| avenues.pop()) };
        lines[k].name = name.or_else(|| pool.next()).unwrap_or_else(|| format!("{}th St", k + 1));
    }
}

/// A node added on a street: the place's address point.
struct Insert {
    line: usize,
    run: usize,
    seg: usize,
    along: P,
    node: usize,
}

fn apply_inserts(lines: &mut [Line], nodes: &[P], mut inserts: Vec<Insert>) {
    inserts.sort_by_key(|a| (a.line, a.run, a.seg));
    for ins in inserts.iter().rev() {
        let run = &mut lines[ins.line].runs[ins.run];
        // After the segment's start and after any address already inserted nearer to it.
        let start = nodes[run[ins.seg]];
        let mut at = ins.seg + 1;
        while at < run.len() && nodes[run[at]].dist(start) < ins.along.dist(start) {
            at += 1;
        }
        run.insert(at, ins.node);
    }
}

fn centroid(poly: &[P]) -> P {
    let n = poly.len().max(1) as f64;
    P::new(poly.iter().map(|p| p.x).sum::<f64>() / n, poly.iter().map(|p| p.y).sum::<f64>() / n)
}

/// The names of the streets through each node.
fn crossing_names(streets: &[Street], n: usize) -> Vec<Vec<String>> {
    let mut out = vec![Vec::<String>::new(); n];
    for s in streets {
        for &k in &s.nodes {
            if !out[k].contains(&s.name) {
                out[k].push(s.name.clone());
            }
        }
    }
    out
}
