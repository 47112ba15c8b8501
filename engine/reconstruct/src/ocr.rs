//! Text read from screenshots with Tesseract, through its C API, loaded at run time.
//!
//! The one module with `unsafe` in reconstruction: every call into the library is here, each
//! with what it relies on. The library is Debian's `libtesseract5` (installed by `make setup`
//! with the English data); when it is missing, reconstruction goes on without reading
//! screenshots and says so. Recognition runs on one thread, one image at a time, in the
//! engine's own mode (LSTM, sparse text), so the same screenshot gives the same words; the
//! version read is recorded in the output. One engine is opened per trace read.
#![allow(unsafe_code)]

use std::ffi::{c_char, c_float, c_int, c_void, CStr, CString};
use std::sync::Mutex;

use crate::visual::Rgb;

/// One line of text found in a screenshot, in its pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct TextLine {
    pub text: String,
    /// `[x1, y1, x2, y2]` in the screenshot's pixels.
    pub bounds: [i32; 4],
    /// Tesseract's confidence, 0..100.
    pub confidence: f32,
}

/// Lines below this confidence are noise (a texture read as letters).
const MIN_CONFIDENCE: f32 = 60.0;
/// Tesseract's page iterator level of a text line (`RIL_TEXTLINE`).
const RIL_TEXTLINE: c_int = 2;
/// Page segmentation: as much text as possible in no particular order (`PSM_SPARSE_TEXT`),
/// what a phone screen is.
const PSM_SPARSE_TEXT: c_int = 11;
/// The library names tried, newest first.
const LIBRARY_NAMES: [&str; 3] = ["libtesseract.so.5", "libtesseract.so.4", "libtesseract.so"];

type Api = *mut c_void;
type Iter = *mut c_void;

/// The C functions used, resolved once.
struct Functions {
    version: unsafe extern "C" fn() -> *const c_char,
    create: unsafe extern "C" fn() -> Api,
    delete: unsafe extern "C" fn(Api),
    init3: unsafe extern "C" fn(Api, *const c_char, *const c_char) -> c_int,
    set_page_seg_mode: unsafe extern "C" fn(Api, c_int),
    set_variable: unsafe extern "C" fn(Api, *const c_char, *const c_char) -> c_int,
    set_image: unsafe extern "C" fn(Api, *const u8, c_int, c_int, c_int, c_int),
    recognize: unsafe extern "C" fn(Api, *mut c_void) -> c_int,
    get_iterator: unsafe extern "C" fn(Api) -> Iter,
    iterator_delete: unsafe extern "C" fn(Iter),
    iterator_next: unsafe extern "C" fn(Iter, c_int) -> c_int,
    iterator_text: unsafe extern "C" fn(Iter, c_int) -> *mut c_char,
    iterator_confidence: unsafe extern "C" fn(Iter, c_int) -> c_float,
    iterator_page: unsafe extern "C" fn(Iter) -> *const c_void,
    page_bounding_box: unsafe extern "C" fn(*const c_void, c_int, *mut c_int, *mut c_int, *mut c_int, *mut c_int) -> c_int,
    delete_text: unsafe extern "C" fn(*const c_char),
}

/// The loaded library and one engine, used by one caller at a time.
pub struct Tesseract {
    _library: libloading::Library,
    f: Functions,
    api: Mutex<Api>,
    version: String,
}

// SAFETY: the engine pointer is only used under the mutex, one call at a time, and Tesseract's
// API object may be used from any thread as long as calls do not overlap.
unsafe impl Send for Tesseract {}
// SAFETY: as above: every use of the engine goes through the mutex.
unsafe impl Sync for Tesseract {}

impl Tesseract {
    fn load() -> Result<Tesseract, String> {
        // One thread (the rule, and faster: OpenMP's team spends more time waking than
        // reading a phone screen). OpenMP reads this when Tesseract's library loads it.
        if std::env::var_os("OMP_THREAD_LIMIT").is_none() {
            // Set before the library that reads it is loaded (the engine is opened once per
            // process: `see::shared`).
            std::env::set_var("OMP_THREAD_LIMIT", "1");
        }
        // SAFETY: loading Tesseract runs its library initializers, which have no preconditions.
        let library = LIBRARY_NAMES.iter().find_map(|name| unsafe { libloading::Library::new(name) }.ok()).ok_or_else(|| {
            "Tesseract is not installed (Debian's libtesseract5 and tesseract-ocr-eng; `make setup` installs them)".to_owned()
        })?;
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the symbol is Tesseract's C API function of this name, whose signature
                // (capi.h) is the field's type.
                *unsafe { library.get(concat!($name, "\0").as_bytes()) }.map_err(|e| format!("Tesseract lacks {}: {e}", $name))?
            };
        }
        let f = Functions {
            version: sym!("TessVersion"),
            create: sym!("TessBaseAPICreate"),
            delete: sym!("TessBaseAPIDelete"),
            init3: sym!("TessBaseAPIInit3"),
            set_page_seg_mode: sym!("TessBaseAPISetPageSegMode"),
            set_variable: sym!("TessBaseAPISetVariable"),
            set_image: sym!("TessBaseAPISetImage"),
            recognize: sym!("TessBaseAPIRecognize"),
            get_iterator: sym!("TessBaseAPIGetIterator"),
            iterator_delete: sym!("TessResultIteratorDelete"),
            iterator_next: sym!("TessResultIteratorNext"),
            iterator_text: sym!("TessResultIteratorGetUTF8Text"),
            iterator_confidence: sym!("TessResultIteratorConfidence"),
            iterator_page: sym!("TessResultIteratorGetPageIteratorConst"),
            page_bounding_box: sym!("TessPageIteratorBoundingBox"),
            delete_text: sym!("TessDeleteText"),
        };
        // SAFETY: TessVersion returns a static NUL-terminated string.
        let version = unsafe { CStr::from_ptr((f.version)()) }.to_string_lossy().into_owned();
        // SAFETY: creating an engine has no preconditions; it is deleted in `Drop`.
        let api = unsafe { (f.create)() };
        if api.is_null() {
            return Err("Tesseract could not create an engine".into());
        }
        let lang = CString::new("eng").unwrap_or_default();
        // SAFETY: `api` is a live engine; a null data path takes the installed data; `lang` is
        // NUL-terminated and outlives the call.
        let failed = unsafe { (f.init3)(api, std::ptr::null(), lang.as_ptr()) } != 0;
        if failed {
            // SAFETY: `api` came from `create` and is not used again.
            unsafe { (f.delete)(api) };
            return Err("Tesseract has no English data (Debian's tesseract-ocr-eng)".into());
        }
        // SAFETY: `api` is a live, initialized engine.
        unsafe { (f.set_page_seg_mode)(api, PSM_SPARSE_TEXT) };
        // Its progress notes ("Estimating resolution as ...") go nowhere rather than to stderr.
        let (name, value) = (CString::new("debug_file").unwrap_or_default(), CString::new("/dev/null").unwrap_or_default());
        // SAFETY: `api` is a live engine; both strings are NUL-terminated and outlive the call.
        unsafe { (f.set_variable)(api, name.as_ptr(), value.as_ptr()) };
        Ok(Tesseract { _library: library, f, api: Mutex::new(api), version })
    }

    /// The library's version, as it reports it (`5.3.0`).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The lines of text in an image, top to bottom.
    pub fn lines(&self, image: &Rgb) -> Vec<TextLine> {
        let (Ok(w), Ok(h)) = (c_int::try_from(image.width), c_int::try_from(image.height)) else { return Vec::new() };
        if w == 0 || h == 0 {
            return Vec::new();
        }
        let bytes: Vec<u8> = image.pixels.iter().flatten().copied().collect();
        let api = self.api.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let f = &self.f;
        let mut out = Vec::new();
        // SAFETY: `*api` is a live engine used only under this lock; `bytes` holds `h` rows of
        // `w` RGB pixels (3 bytes each, rows `3 * w` apart) and outlives recognition, which
        // copies it. The iterator and each text are freed with their own delete functions.
        unsafe {
            (f.set_image)(*api, bytes.as_ptr(), w, h, 3, 3 * w);
            if (f.recognize)(*api, std::ptr::null_mut()) != 0 {
                return out;
            }
            let iter = (f.get_iterator)(*api);
            if iter.is_null() {
                return out;
            }
            loop {
                let text_ptr = (f.iterator_text)(iter, RIL_TEXTLINE);
                if !text_ptr.is_null() {
                    let text = CStr::from_ptr(text_ptr).to_string_lossy().split_whitespace().collect::<Vec<_>>().join(" ");
                    (f.delete_text)(text_ptr);
                    let confidence = (f.iterator_confidence)(iter, RIL_TEXTLINE);
                    let (mut x1, mut y1, mut x2, mut y2) = (0, 0, 0, 0);
                    let page = (f.iterator_page)(iter);
                    let boxed = !page.is_null() && (f.page_bounding_box)(page, RIL_TEXTLINE, &mut x1, &mut y1, &mut x2, &mut y2) != 0;
                    if boxed && confidence >= MIN_CONFIDENCE && text.chars().any(char::is_alphanumeric) {
                        out.push(TextLine { text, bounds: [x1, y1, x2, y2], confidence });
                    }
                }
                if (f.iterator_next)(iter, RIL_TEXTLINE) == 0 {
                    break;
                }
            }
            (f.iterator_delete)(iter);
        }
        out.sort_by_key(|l| (l.bounds[1], l.bounds[0]));
        out
    }
}

impl Drop for Tesseract {
    fn drop(&mut self) {
        let api = self.api.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
        // SAFETY: the engine came from `create`, is live, and nothing uses it after this.
        unsafe { (self.f.delete)(*api) };
    }
}

/// Opens Tesseract: the library and one engine, freed when dropped (an engine kept until the
/// process exits makes Tesseract report its caches as leaked). `Err` says why there is none.
pub fn open() -> Result<Tesseract, String> {
    Tesseract::load()
}
