//! phoneworld-phone
