#ifndef CPU_CACHE_HINTS_H
#define CPU_CACHE_HINTS_H

/// Asks the core to bring the cache line holding `address` into its second-level cache for a read soon.
/// It never waits and never faults, whatever the address.
static inline void cpu_cache_prefetch_for_reading(const void *address) {
    __builtin_prefetch(address, 0, 2);
}

#endif
