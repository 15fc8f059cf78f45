//! The `mcpspec` binary: parses the command line and runs the command. Everything a command
//! does is a module of [`cli`] (options → plan → run); the Gherkin suites the certifying
//! commands run are [`suite`] (kept in the binary because cucumber collects steps with
//! link-time registration that does not survive crossing a crate boundary). The stages a
//! message passes below them are the `mcpspec` library.

mod cli;
mod suite;

use clap::Parser as _;
use std::process::ExitCode;

fn main() -> ExitCode {
    let command = cli::Cli::parse().into_command();
    if command.holds_many_sessions() {
        give_large_blocks_back();
    }
    // The fuzzer's work is a pipe ping-pong with its children: on one thread, a frame read
    // from a child reaches the window that waits for it without a wakeup across threads
    // (which cost more than the work itself). The children run on the other cores.
    let runtime = if command.single_threaded() {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Runtime::new()
    };
    let runtime = match runtime {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mcpspec: cannot start the async runtime: {e}");
            return ExitCode::from(mcpspec::report::exit::ERROR);
        }
    };
    let code = runtime.block_on(async {
        if command.handles_signals() {
            // These handle SIGINT, SIGTERM and SIGHUP themselves: they stop, end every process
            // they started and write the reports of what ran.
            return cli::run(command).await;
        }
        tokio::select! {
            code = cli::run(command) => code,
            _ = tokio::signal::ctrl_c() => {
                // Dropping the run ends every session; each kills its process group.
                eprintln!("mcpspec: interrupted");
                130
            }
        }
    });
    // Don't wait for stray blocking tasks (a stdin read, a hung pipe) on the way out.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    ExitCode::from(code)
}

/// Blocks of 256 KiB and more are mapped on their own and unmapped when freed. glibc's malloc
/// otherwise raises that threshold to the largest block freed so far (up to 32 MiB): after the
/// first 4 MiB message, every later one is carved from the heap, whose freed memory stays
/// resident. A run judging dozens of sessions that return 4 MiB results peaked at 143-147 MiB
/// that way, 118-125 MiB with the threshold fixed (issue #31, `bench/growth.sh`, 10,000 tools).
/// The price is paid only by messages that large: each is mapped and faulted in afresh, and
/// that run took 30 s instead of 23-24 s; runs of ordinary messages are not touched.
/// 256 KiB is twice glibc's starting threshold: a page of a listing stays in the heap, a
/// message that grows a reader's buffer past it does not.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn give_large_blocks_back() {
    // SAFETY: mallopt only sets a parameter of the allocator; it is called before the runtime
    // starts any thread, and a threshold it refuses leaves malloc as it was.
    unsafe {
        nix::libc::mallopt(nix::libc::M_MMAP_THRESHOLD, 256 << 10);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn give_large_blocks_back() {}
