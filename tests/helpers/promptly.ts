// The bound on "refused at once" checks: far above any honest run on a loaded 2-core machine (a GC pause, a suite
// beside), far below what a hang, a loop over a hostile count or an allocation of a hostile size would take.
export const PROMPTLY_MS = 5000;
