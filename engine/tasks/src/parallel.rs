//! Independent episodes played on every core, their results kept in the order of their jobs,
//! so a report is the same however many cores played it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// `play` of every item on up to `available_parallelism` threads. `on_each` sees each result as
/// it ends (on the calling thread, in the order they end: for progress displays); the results
/// come back in the order of `items`. After an error no new item starts, and the error of the
/// earliest failing item is returned.
pub(crate) fn play_all<T: Sync, R: Send, E: Send>(
    items: &[T],
    play: impl Fn(&T) -> Result<R, E> + Sync,
    on_each: &mut dyn FnMut(&T, &R),
) -> Result<Vec<R>, E> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(items.len());
    if threads <= 1 {
        return items
            .iter()
            .map(|item| {
                let result = play(item)?;
                on_each(item, &result);
                Ok(result)
            })
            .collect();
    }
    let (next, failed) = (AtomicUsize::new(0), AtomicBool::new(false));
    let mut slots: Vec<Option<R>> = items.iter().map(|_| None).collect();
    let mut first_error: Option<(usize, E)> = None;
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel();
        for _ in 0..threads {
            let (sender, next, failed, play) = (sender.clone(), &next, &failed, &play);
            // An item taken is always played, so no later error can hide an earlier one.
            scope.spawn(move || loop {
                if failed.load(Ordering::Relaxed) {
                    break;
                }
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= items.len() {
                    break;
                }
                let _stop = StopOnPanic(failed);
                let result = play(&items[index]);
                failed.fetch_or(result.is_err(), Ordering::Relaxed);
                if sender.send((index, result)).is_err() {
                    break;
                }
            });
        }
        drop(sender);
        for (index, result) in receiver {
            match result {
                Ok(value) => {
                    on_each(&items[index], &value);
                    slots[index] = Some(value);
                }
                Err(e) => {
                    if first_error.as_ref().is_none_or(|(earliest, _)| index < *earliest) {
                        first_error = Some((index, e));
                    }
                }
            }
        }
    });
    match first_error {
        Some((_, e)) => Err(e),
        // Without an error every item was played and sent its result.
        None => Ok(slots.into_iter().flatten().collect()),
    }
}

/// Stops the other workers taking new items when a player panics (the panic reaches the
/// caller once they finish the items they hold).
struct StopOnPanic<'a>(&'a AtomicBool);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::play_all;

    #[test]
    fn results_keep_the_order_of_their_items() {
        let items: Vec<u64> = (0..200).collect();
        let mut seen = 0;
        let squares = play_all(&items, |&n| Ok::<_, String>(n * n), &mut |_, _| seen += 1).unwrap();
        assert_eq!(squares, items.iter().map(|n| n * n).collect::<Vec<_>>());
        assert_eq!(seen, 200);
    }

    #[test]
    fn the_earliest_error_is_returned() {
        let items: Vec<u64> = (0..50).collect();
        let err = play_all(&items, |&n| if n % 10 == 7 { Err(n) } else { Ok(n) }, &mut |_, _| {}).unwrap_err();
        assert_eq!(err, 7);
    }
}
