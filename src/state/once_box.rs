//! A box set at most once through a shared reference, in one word: how a state's
//! task handle holds the task it reads from its record on the first look
//! (`state::task_ref`).
//!
//! `std::sync::OnceLock<Box<T>>` is two words (its state and the box), and
//! `once_cell::race::OnceBox` is one but cannot give its box back or lend it
//! mutably, which changing a task (`TaskRef::make_mut`) and taking it
//! (`TaskRef::into_task`) need without copying it. The word matters: a fresh import
//! holds one handle per task, and one word less puts the handle in a smaller
//! allocator block (BENCHMARKS.md, the import's peak).
//!
//! Two threads that look at an unset box at once may both make a value; the first
//! set is kept by every thread and the other dropped, as `once_cell::race` does. For
//! a task, that is its record parsed twice: the same task, unless the file was
//! changed in place meanwhile, which ends the command either way
//! (`task_ref::read_record`).

use std::marker::PhantomData;
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

/// Null until set, then a pointer from `Box::into_raw` that this cell alone owns,
/// and never changed through a shared reference once set.
pub struct OnceBox<T> {
    ptr: AtomicPtr<T>,
    /// Owns a `T`, and is `Send`/`Sync` only as the impls below say (`AtomicPtr`
    /// would be both whatever `T` is).
    _owns: PhantomData<*mut T>,
}

// SAFETY: the cell owns its `T` as a `Box<T>` would; sending the cell sends the `T`.
unsafe impl<T: Send> Send for OnceBox<T> {}
// SAFETY: through a shared cell, threads read `&T` (so `T: Sync`) and a `T` made on
// one thread may be dropped on another or set for all (so `T: Send`), as for
// `once_cell::race::OnceBox`.
unsafe impl<T: Send + Sync> Sync for OnceBox<T> {}

impl<T> OnceBox<T> {
    pub const fn new() -> OnceBox<T> {
        OnceBox {
            ptr: AtomicPtr::new(ptr::null_mut()),
            _owns: PhantomData,
        }
    }

    pub fn with(value: Box<T>) -> OnceBox<T> {
        OnceBox {
            ptr: AtomicPtr::new(Box::into_raw(value)),
            _owns: PhantomData,
        }
    }

    pub fn get(&self) -> Option<&T> {
        let ptr = self.ptr.load(Ordering::Acquire);
        // SAFETY: non-null, the pointer is a box's that the cell owns and frees only
        // through `&mut self` or by value, so it outlives `&self`; the `Acquire` load
        // pairs with the `Release` of the exchange that set it, so the `T` is seen as
        // it was made.
        unsafe { ptr.as_ref() }
    }

    /// The value, made by `make` and set first if the cell was unset. Threads that
    /// find it unset at once each run `make`, and all but the first value set are
    /// dropped: `make` must be free to run more than once.
    pub fn get_or_init(&self, make: impl FnOnce() -> Box<T>) -> &T {
        if let Some(value) = self.get() {
            return value;
        }
        let made = Box::into_raw(make());
        match self
            .ptr
            .compare_exchange(ptr::null_mut(), made, Ordering::AcqRel, Ordering::Acquire)
        {
            // SAFETY: `made` is now the cell's, freed only through `&mut self`.
            Ok(_) => unsafe { &*made },
            Err(set) => {
                // SAFETY: the exchange failed, so `made` is still ours alone.
                drop(unsafe { Box::from_raw(made) });
                // SAFETY: as in `get`: set by another thread, seen through `Acquire`.
                unsafe { &*set }
            }
        }
    }

    pub fn get_mut(&mut self) -> Option<&mut T> {
        // SAFETY: non-null, the pointer is the cell's box, and `&mut self` means no
        // other reference to it is alive.
        unsafe { self.ptr.get_mut().as_mut() }
    }

    pub fn into_inner(mut self) -> Option<Box<T>> {
        let ptr = std::mem::replace(self.ptr.get_mut(), ptr::null_mut());
        // SAFETY: non-null, the pointer is the cell's box, taken out of the cell
        // (which then drops empty), so it is owned once.
        (!ptr.is_null()).then(|| unsafe { Box::from_raw(ptr) })
    }
}

impl<T> Drop for OnceBox<T> {
    fn drop(&mut self) {
        let ptr = *self.ptr.get_mut();
        if !ptr.is_null() {
            // SAFETY: the cell's box, dropped once, with the cell.
            drop(unsafe { Box::from_raw(ptr) });
        }
    }
}

impl<T: Clone> Clone for OnceBox<T> {
    fn clone(&self) -> OnceBox<T> {
        match self.get() {
            Some(value) => OnceBox::with(Box::new(value.clone())),
            None => OnceBox::new(),
        }
    }
}

impl<T> Default for OnceBox<T> {
    fn default() -> OnceBox<T> {
        OnceBox::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::{Arc, Barrier};

    /// A value that counts how many of its kind are alive.
    #[derive(Debug)]
    struct Counted {
        made_by: usize,
        alive: Arc<AtomicUsize>,
    }

    impl Counted {
        fn new(made_by: usize, alive: &Arc<AtomicUsize>) -> Counted {
            alive.fetch_add(1, Ordering::SeqCst);
            Counted {
                made_by,
                alive: Arc::clone(alive),
            }
        }
    }

    impl Clone for Counted {
        fn clone(&self) -> Counted {
            Counted::new(self.made_by, &self.alive)
        }
    }

    impl Drop for Counted {
        fn drop(&mut self) {
            self.alive.fetch_sub(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn threads_looking_first_at_once_all_get_the_one_value_kept() {
        for _ in 0..20 {
            let alive = Arc::new(AtomicUsize::new(0));
            let cell = OnceBox::new();
            // Each thread makes its value only once all four are making one: none
            // can have been set, so all four race to set theirs.
            let all_making = Barrier::new(4);
            let got: Vec<(usize, usize)> = std::thread::scope(|s| {
                let threads: Vec<_> = (0..4)
                    .map(|i| {
                        let (cell, all_making, alive) = (&cell, &all_making, &alive);
                        s.spawn(move || {
                            let value = cell.get_or_init(|| {
                                all_making.wait();
                                Box::new(Counted::new(i, alive))
                            });
                            (value.made_by, std::ptr::from_ref(value) as usize)
                        })
                    })
                    .collect();
                threads.into_iter().map(|t| t.join().unwrap()).collect()
            });
            assert!(got.iter().all(|g| *g == got[0]), "{got:?}");
            // Every value made and not kept was dropped.
            assert_eq!(alive.load(Ordering::SeqCst), 1);
            assert_eq!(cell.get().unwrap().made_by, got[0].0);
            drop(cell);
            assert_eq!(alive.load(Ordering::SeqCst), 0);
        }
    }

    #[test]
    fn a_set_cell_is_not_made_again() {
        let alive = Arc::new(AtomicUsize::new(0));
        let cell = OnceBox::with(Box::new(Counted::new(1, &alive)));
        let value = cell.get_or_init(|| unreachable!("the cell was set"));
        assert_eq!(value.made_by, 1);
        assert_eq!(alive.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_clone_is_a_value_of_its_own_and_each_drops_its_own() {
        let alive = Arc::new(AtomicUsize::new(0));
        let mut cell = OnceBox::new();
        let empty = cell.clone();
        assert!(empty.get().is_none());
        cell.get_or_init(|| Box::new(Counted::new(1, &alive)));
        let mut copy = cell.clone();
        assert_eq!(alive.load(Ordering::SeqCst), 2);
        copy.get_mut().unwrap().made_by = 2;
        assert_eq!(cell.get_mut().unwrap().made_by, 1);
        drop(cell);
        assert_eq!(alive.load(Ordering::SeqCst), 1);
        drop(copy);
        assert_eq!(alive.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn the_value_taken_out_is_the_one_set_and_dropped_once() {
        let alive = Arc::new(AtomicUsize::new(0));
        let mut cell = OnceBox::new();
        assert!(cell.get_mut().is_none());
        cell.get_or_init(|| Box::new(Counted::new(1, &alive)));
        cell.get_mut().unwrap().made_by = 3;
        let value = cell.into_inner().unwrap();
        assert_eq!((value.made_by, alive.load(Ordering::SeqCst)), (3, 1));
        drop(value);
        assert_eq!(alive.load(Ordering::SeqCst), 0);
        assert!(OnceBox::<Counted>::new().into_inner().is_none());
    }
}
