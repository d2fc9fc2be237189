//! `leaseq`: see and steer leaseq queues from a shell, a web dashboard, or Prometheus.

use std::process::ExitCode;

fn main() -> ExitCode {
    let code = leaseq_cli::run(std::env::args_os());
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
