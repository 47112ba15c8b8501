//! What drives a phone without a model, through the device's public interface only: the
//! seeded monkey (random actions), the explorer (every widget of every screen once), the
//! walker that alternates them, and the trajectory writer (a PNG or JPEG and the UI tree per
//! step, and a JSONL of steps).

mod explorer;
mod monkey;
mod trajectory;
mod walker;

pub use explorer::Explorer;
pub use monkey::{monkey_action, Monkey};
pub use trajectory::{step_recorded, ImageFormat, ImageOptions, Observation, TrajectoryWriter};
pub use walker::Walker;
