//! The image assets of the installed apps: read from the app bundle (confined to it, bounded),
//! decoded once per catalog on first use, and shared by every device through `Arc`.

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex};

use phoneworld_data::{AppBundle, DataError};
use phoneworld_render::{Image, MAX_IMAGE_FILE_BYTES};

/// Decoded bytes one catalog keeps; past it the oldest images are dropped (and decoded again,
/// to the same pixels, if shown again).
pub const MAX_DECODED_IMAGE_BYTES: usize = 256 << 20;
/// What a failed image counts towards that bound: its message, kept so it is not read again.
const ERROR_BYTES: usize = 1024;

/// Reads and decodes an image of the bundle. `referrer` is the file that names it (for an
/// error about a path that leads out of the bundle); every other error names the image file.
pub fn load_image(bundle: &AppBundle, referrer: &Path, reference: &str) -> Result<Image, DataError> {
    let bytes = bundle.read_asset(referrer, reference, MAX_IMAGE_FILE_BYTES)?;
    Image::decode(&bytes).map_err(|err| DataError::Image { path: bundle.dir.join(reference), message: err.to_string() })
}

type Key = (String, String);

/// Decoded images by (package, path), or why one cannot be shown.
#[derive(Default)]
pub struct ImageStore {
    inner: Mutex<Decoded>,
}

#[derive(Default)]
struct Decoded {
    map: BTreeMap<Key, Result<Arc<Image>, String>>,
    /// Insertion order: the oldest go first.
    order: VecDeque<Key>,
    bytes: usize,
}

impl std::fmt::Debug for ImageStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.inner.lock().map_or(0, |d| d.map.len());
        write!(f, "ImageStore({n} images)")
    }
}

impl ImageStore {
    /// The image `reference` of the app's bundle, decoded on first use; the error message
    /// (naming the file) when it is missing or cannot be decoded.
    pub fn get(&self, bundle: &AppBundle, reference: &str) -> Result<Arc<Image>, String> {
        let key = (bundle.manifest.package.clone(), reference.to_owned());
        if let Some(hit) = self.inner.lock().unwrap_or_else(|e| e.into_inner()).map.get(&key) {
            return hit.clone();
        }
        // Decoded outside the lock: other devices keep drawing meanwhile. Two threads may
        // decode the same file at once; the first one stored wins, with the same pixels.
        let loaded = load_image(bundle, &bundle.dir, reference).map(Arc::new).map_err(|e| e.to_string());
        let size = loaded.as_ref().map_or(ERROR_BYTES, |i| i.byte_size());
        let mut d = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(hit) = d.map.get(&key) {
            return hit.clone();
        }
        while d.bytes + size > MAX_DECODED_IMAGE_BYTES {
            let Some(old) = d.order.pop_front() else { break };
            if let Some(gone) = d.map.remove(&old) {
                d.bytes -= gone.as_ref().map_or(ERROR_BYTES, |i| i.byte_size());
            }
        }
        d.bytes += size;
        d.order.push_back(key.clone());
        d.map.insert(key, loaded.clone());
        loaded
    }
}
