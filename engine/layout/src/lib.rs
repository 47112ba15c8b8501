//! phoneworld-layout
