//! Reconstruction: real GUI traces become a GUI-usage graph and a runnable mock app.
