//! Giving usrsctp the simulation's clock and random source.
//!
//! usrsctp's timers run on ticks the application hands it (`usrsctp_handle_timers`), but the
//! stack also reads the wall clock: every DATA chunk, heartbeat and cookie is stamped with
//! gettimeofday(2), and RTT samples (so SRTT, RTO and the srtt it reports) are differences of
//! those stamps. In a simulation that runs 80 simulated seconds in a tenth of a real one, the
//! RTTs would be microseconds of host time, different on every run. Its randomness
//! (verification tags, initial TSNs, cookie secrets, AUTH randoms, heartbeat jitter) comes from
//! getrandom(2) through the library's internal `read_random`.
//!
//! Both are called through the library's procedure linkage table, so after loading, their
//! global offset table slots in *that library only* are pointed at the functions below: the
//! clock reads the simulated time of the current run, the random source is a splitmix64
//! stream seeded by the run. Nothing else in the process is affected. Two more slots are taken
//! the same way: getifaddrs(3), so the stack never sees the host's interfaces, and the
//! stack's IPv4 output routine, so IPv4 packets reach the simulation (`inet.rs`). The slots are found from
//! the library's dynamic section in memory (its PLT relocations name the symbol); on Linux with
//! BIND_NOW the table is read-only after relocation (RELRO), so it is made writable for the two
//! writes and read-only again.
//!
//! Supported where the relocation types are known: x86-64 and aarch64.

use std::ffi::{c_int, c_void, CStr};
use std::sync::atomic::{AtomicU64, Ordering};

/// Simulated time of the current run as usrsctp sees it, in microseconds since the Unix epoch.
static NOW_US: AtomicU64 = AtomicU64::new(0);
/// splitmix64 state of the random source.
static RANDOM: AtomicU64 = AtomicU64::new(0);

/// What usrsctp's gettimeofday returns from now on.
pub fn set_now_us(us: u64) {
    NOW_US.store(us, Ordering::Relaxed);
}

/// Restart the random source from `seed` (at the start of each run).
pub fn seed_random(seed: u64) {
    RANDOM.store(seed, Ordering::Relaxed);
}

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

fn next_random() -> u64 {
    // splitmix64 (Steele, Lea, Flood 2014): one add per draw, then a fixed mix.
    let mut z = RANDOM
        .fetch_add(GOLDEN, Ordering::Relaxed)
        .wrapping_add(GOLDEN);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

unsafe extern "C" fn sim_gettimeofday(tv: *mut libc::timeval, _tz: *mut c_void) -> c_int {
    if !tv.is_null() {
        let us = NOW_US.load(Ordering::Relaxed);
        // SAFETY: the caller passes a valid timeval.
        unsafe {
            (*tv).tv_sec = (us / 1_000_000) as libc::time_t;
            (*tv).tv_usec = (us % 1_000_000) as libc::suseconds_t;
        }
    }
    0
}

unsafe extern "C" fn sim_read_random(buf: *mut c_void, size: usize) {
    if buf.is_null() {
        return;
    }
    // SAFETY: usrsctp passes a buffer of `size` bytes.
    let out = unsafe { std::slice::from_raw_parts_mut(buf as *mut u8, size) };
    for chunk in out.chunks_mut(8) {
        let x = next_random().to_le_bytes();
        chunk.copy_from_slice(&x[..chunk.len()]);
    }
}

#[cfg(target_arch = "x86_64")]
const PLT_RELOCS: [u32; 2] = [7, 6]; // R_X86_64_JUMP_SLOT, R_X86_64_GLOB_DAT
#[cfg(target_arch = "aarch64")]
const PLT_RELOCS: [u32; 2] = [1026, 1025]; // R_AARCH64_JUMP_SLOT, R_AARCH64_GLOB_DAT

const DT_NULL: i64 = 0;
const DT_PLTRELSZ: i64 = 2;
const DT_STRTAB: i64 = 5;
const DT_SYMTAB: i64 = 6;
const DT_RELA: i64 = 7;
const DT_RELASZ: i64 = 8;
const DT_JMPREL: i64 = 23;

#[repr(C)]
struct Dyn {
    tag: i64,
    val: u64,
}

#[repr(C)]
struct Rela {
    offset: u64,
    info: u64,
    _addend: i64,
}

#[repr(C)]
struct Sym {
    name: u32,
    _info: u8,
    _other: u8,
    _shndx: u16,
    _value: u64,
    _size: u64,
}

/// Where the loaded library lives: load bias, dynamic section, RELRO range.
struct Image {
    bias: usize,
    dynamic: usize,
    relro: Option<(usize, usize)>,
}

struct Search {
    anchor: usize,
    found: Option<Image>,
}

unsafe extern "C" fn visit(
    info: *mut libc::dl_phdr_info,
    _size: usize,
    data: *mut c_void,
) -> c_int {
    // SAFETY: dl_iterate_phdr passes a valid info; `data` is the `Search` of `find_image`.
    let (info, search) = unsafe { (&*info, &mut *(data as *mut Search)) };
    if info.dlpi_phdr.is_null() {
        return 0;
    }
    let bias = info.dlpi_addr as usize;
    // SAFETY: the loader's program headers of this object.
    let phdrs = unsafe { std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum as usize) };
    let range = |p: &libc::Elf64_Phdr| {
        let start = bias + p.p_vaddr as usize;
        (start, start + p.p_memsz as usize)
    };
    let holds_anchor = phdrs.iter().any(|p| {
        let (s, e) = range(p);
        p.p_type == libc::PT_LOAD && (s..e).contains(&search.anchor)
    });
    if !holds_anchor {
        return 0;
    }
    let Some(dynamic) = phdrs.iter().find(|p| p.p_type == libc::PT_DYNAMIC) else {
        return 0;
    };
    search.found = Some(Image {
        bias,
        dynamic: range(dynamic).0,
        relro: phdrs
            .iter()
            .find(|p| p.p_type == libc::PT_GNU_RELRO)
            .map(range),
    });
    1
}

fn find_image(anchor: *const c_void) -> Option<Image> {
    let mut search = Search {
        anchor: anchor as usize,
        found: None,
    };
    // SAFETY: the callback only reads the loader's data and writes `search`.
    unsafe { libc::dl_iterate_phdr(Some(visit), &mut search as *mut Search as *mut c_void) };
    search.found
}

/// Point the library's GOT slots of the named symbols at the given functions; returns the
/// names whose slots were found and rewritten.
///
/// # Safety
/// `image` must describe a loaded, relocated object, and each replacement must have the
/// symbol's C signature.
unsafe fn patch(image: &Image, targets: &[(&str, usize)]) -> Result<Vec<String>, String> {
    // glibc relocates the address entries of the in-memory dynamic section on most
    // architectures; a value below the load bias is still an offset.
    let abs = |v: u64| -> usize {
        let v = v as usize;
        if v < image.bias {
            v + image.bias
        } else {
            v
        }
    };
    let (mut strtab, mut symtab) = (0usize, 0usize);
    let mut tables: Vec<(usize, usize)> = Vec::new();
    let (mut jmprel, mut pltrelsz, mut rela, mut relasz) = (0usize, 0usize, 0usize, 0usize);
    let mut d = image.dynamic as *const Dyn;
    loop {
        // SAFETY: the dynamic section is an array ending with DT_NULL.
        let e = unsafe { &*d };
        match e.tag {
            DT_NULL => break,
            DT_STRTAB => strtab = abs(e.val),
            DT_SYMTAB => symtab = abs(e.val),
            DT_JMPREL => jmprel = abs(e.val),
            DT_PLTRELSZ => pltrelsz = e.val as usize,
            DT_RELA => rela = abs(e.val),
            DT_RELASZ => relasz = e.val as usize,
            _ => {}
        }
        d = unsafe { d.add(1) };
    }
    if strtab == 0 || symtab == 0 {
        return Err("the library has no dynamic symbol table".into());
    }
    if jmprel != 0 {
        tables.push((jmprel, pltrelsz));
    }
    if rela != 0 {
        tables.push((rela, relasz));
    }
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
    let mut done = Vec::new();
    for (start, bytes) in tables {
        let n = bytes / std::mem::size_of::<Rela>();
        // SAFETY: DT_RELA / DT_JMPREL point at `bytes` bytes of Elf64_Rela entries.
        let relocs = unsafe { std::slice::from_raw_parts(start as *const Rela, n) };
        for r in relocs {
            if !PLT_RELOCS.contains(&((r.info & 0xffff_ffff) as u32)) {
                continue;
            }
            let sym = unsafe { &*((symtab as *const Sym).add((r.info >> 32) as usize)) };
            let name =
                unsafe { CStr::from_ptr((strtab + sym.name as usize) as *const libc::c_char) };
            let Some((t, f)) = targets
                .iter()
                .find(|(t, _)| t.as_bytes() == name.to_bytes())
            else {
                continue;
            };
            let slot = image.bias + r.offset as usize;
            let in_relro = image.relro.is_some_and(|(s, e)| (s..e).contains(&slot));
            let page_start = slot & !(page - 1);
            if in_relro
                && unsafe {
                    libc::mprotect(
                        page_start as *mut c_void,
                        page,
                        libc::PROT_READ | libc::PROT_WRITE,
                    )
                } != 0
            {
                return Err(format!("cannot make the GOT slot of {t} writable"));
            }
            // SAFETY: a GOT slot holds one function pointer; the page is writable now.
            unsafe { std::ptr::write_volatile(slot as *mut usize, *f) };
            if in_relro {
                unsafe { libc::mprotect(page_start as *mut c_void, page, libc::PROT_READ) };
            }
            done.push(t.to_string());
        }
    }
    Ok(done)
}

unsafe extern "C" fn sim_getifaddrs(list: *mut *mut c_void) -> c_int {
    // The host's interfaces are not the simulation's: the stack starts with none (so nothing
    // in a run depends on the machine), and a run registers its nodes' addresses.
    if !list.is_null() {
        // SAFETY: the caller passes a valid pointer to the list head.
        unsafe { *list = std::ptr::null_mut() };
    }
    0
}

/// What `install` redirected.
pub struct Installed {
    /// The random source is the run's (read_random is called through the PLT).
    pub random_seeded: bool,
    /// IPv4 output reaches `inet::sim_ip_output` (needed for multihomed associations).
    pub ip_output: bool,
}

/// Redirect the clock (required), the random source, the host's interface list and the IPv4
/// output routine (when the library calls them through its PLT) of the library containing
/// `anchor`.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub fn install(anchor: *const c_void) -> Result<Installed, String> {
    let image = find_image(anchor).ok_or("the loaded library's image was not found")?;
    let targets = [
        ("gettimeofday", sim_gettimeofday as *const () as usize),
        ("read_random", sim_read_random as *const () as usize),
        ("getifaddrs", sim_getifaddrs as *const () as usize),
        (
            "sctp_userspace_ip_output",
            crate::inet::sim_ip_output as *const () as usize,
        ),
    ];
    // SAFETY: the image was found by the loader; each replacement has the C signature of the
    // function it replaces: gettimeofday(2), getifaddrs(3), usrsctp's `void read_random(void *,
    // size_t)` and `void sctp_userspace_ip_output(int *, struct mbuf *, sctp_route_t *, void *,
    // uint32_t)`.
    let done = unsafe { patch(&image, &targets)? };
    let has = |n: &str| done.iter().any(|d| d == n);
    if !has("gettimeofday") {
        return Err("the library does not call gettimeofday through its PLT".into());
    }
    Ok(Installed {
        random_seeded: has("read_random"),
        ip_output: has("sctp_userspace_ip_output") && has("getifaddrs"),
    })
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub fn install(_anchor: *const c_void) -> Result<Installed, String> {
    Err("redirecting the clock is only implemented for x86-64 and aarch64".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_source_repeats_after_reseeding() {
        // The process-wide stream is shared with any usrsctp run of this test binary: hold
        // the stack lock while drawing.
        let _guard = crate::lease::test_lock();
        let mut a = [0u8; 13];
        let mut b = [0u8; 13];
        seed_random(42);
        unsafe { sim_read_random(a.as_mut_ptr() as *mut c_void, a.len()) };
        seed_random(42);
        unsafe { sim_read_random(b.as_mut_ptr() as *mut c_void, b.len()) };
        assert_eq!(a, b);
        assert_ne!(a, [0; 13]);
    }

    #[test]
    fn clock_reports_the_simulated_microsecond() {
        let _guard = crate::lease::test_lock();
        set_now_us(1_577_836_800_123_456);
        let mut tv = libc::timeval {
            tv_sec: 0,
            tv_usec: 0,
        };
        unsafe { sim_gettimeofday(&mut tv, std::ptr::null_mut()) };
        assert_eq!((tv.tv_sec, tv.tv_usec), (1_577_836_800, 123_456));
    }
}
