//! ADB: a client for real phones and a server that makes the mock phone answer ADB.
