//! The `leaseq` command as a library (`run`), so that the Python and Node packages carry it too:
//! see and steer leaseq queues from a shell, a web dashboard, or Prometheus.

/// `println!` that never panics: once standard output is closed (piped into `head`, say) the
/// lines go nowhere, and [`output::closed`] says so, for the commands that go on printing.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::output::line(format_args!($($arg)*))
    };
}

/// `eprintln!` that never panics: a closed standard error (`2>&1 | head`) loses the line.
macro_rules! tell {
    ($($arg:tt)*) => {
        $crate::output::tell(format_args!($($arg)*))
    };
}

mod args;
mod commands;
mod connect;
mod dashboard;
mod fail;
mod metrics;
mod output;
mod view;

use std::ffi::OsString;
use std::io::Write;

use clap::Parser;

use args::{Cli, Command, ConfigCommand, DeadCommand, GroupArgs, GroupCommand};
use commands::{check, clean, config, dead, groups, inspect, items, pause, schedules, workers};
use fail::{Fail, Outcome};

/// Runs the `leaseq` command with `args` (the program name first, as in `std::env::args_os`) and
/// returns its exit code: what `main` does, and what the Python and Node packages call so that
/// `leaseq` comes with each of them. It builds its own tokio runtime, so it must not be called
/// from inside one.
pub fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let code = match Cli::try_parse_from(args) {
        Ok(cli) => {
            // A second call in one process (a binding's tests) keeps the first subscriber.
            let _ = tracing_subscriber::fmt()
                .with_env_filter(
                    tracing_subscriber::EnvFilter::try_from_env("LEASEQ_LOG")
                        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
                )
                .with_writer(std::io::stderr)
                .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
                .try_init();
            let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
            let code = match runtime.block_on(execute(cli)) {
                Ok(()) => 0,
                Err(fail) => {
                    tell!("leaseq: {fail}");
                    fail.exit_code()
                }
            };
            // Inside Python or Node the process goes on: do not wait for tasks the command left
            // (a connection's, a signal listener's); waiting could hang the host after a signal.
            runtime.shutdown_background();
            code
        }
        // --help and --version print and end with 0; usage errors with 2.
        Err(error) => {
            let _ = error.print();
            error.exit_code()
        }
    };
    // Inside Python or Node no Rust `main` returns to flush stdout.
    let _ = std::io::stdout().flush();
    code
}

async fn execute(cli: Cli) -> Outcome {
    // Serving validates its listen address and token before connecting.
    match &cli.command {
        Command::Dashboard(serve) => dashboard::check_exposure(serve, true)?,
        Command::Metrics(serve) => dashboard::check_exposure(serve, false)?,
        _ => {}
    }
    // The servers start while Redis is down, and connect when a request needs it.
    match cli.command {
        Command::Dashboard(serve) => return dashboard::serve(cli.conn, serve, true).await,
        Command::Metrics(serve) => return dashboard::serve(cli.conn, serve, false).await,
        _ => {}
    }
    let client = connect::connect(&cli.conn).await?;
    // On a partitioned queue's base every command reaches its partitions (commands::partitions).
    let reads_only = reads_only(&cli.command);
    match cli.command {
        Command::Queues {
            starting_with,
            json,
        } => inspect::queues(&client, &starting_with, json.json).await,
        Command::Stats { queue, watch, json } => {
            inspect::stats(&client, queue.as_deref(), watch, json.json).await
        }
        Command::Ls {
            queue,
            state,
            limit,
            start,
            json,
        } => {
            inspect::ls(
                &client,
                &queue.queue,
                state.state(),
                start,
                limit.into(),
                json.json,
            )
            .await
        }
        Command::Get { queue, id, json } => {
            inspect::get(&client, &queue.queue, &id, json.json).await
        }
        Command::Tree { queue, id, json } => {
            inspect::tree(&client, &queue.queue, &id, json.json).await
        }
        Command::Add(args) => items::add(&client, &args).await,
        Command::Cancel { queue, id, json } => {
            items::cancel(&client, &queue.queue, &id, json.json).await
        }
        Command::Pause { queue, json } => pause::set(&client, &queue.queue, true, json.json).await,
        Command::Resume { queue, json } => {
            pause::set(&client, &queue.queue, false, json.json).await
        }
        Command::Hold {
            queue,
            group,
            duration,
            json,
        } => pause::hold(&client, &queue.queue, group.as_deref(), duration, json.json).await,
        Command::Group(args) => match args.command {
            Some(GroupCommand::Pause(g)) => {
                groups::set(&client, &g.queue.queue, &g.name, true, g.json.json).await
            }
            Some(GroupCommand::Resume(g)) => {
                groups::set(&client, &g.queue.queue, &g.name, false, g.json.json).await
            }
            Some(GroupCommand::Limit { group, limit }) => {
                groups::limit(
                    &client,
                    &group.queue.queue,
                    &group.name,
                    limit.0,
                    group.json.json,
                )
                .await
            }
            None => {
                let (Some(queue), Some(name)) = (args.queue, args.name) else {
                    unreachable!("clap requires --queue and NAME without a subcommand")
                };
                groups::show(&client, &queue, &name, args.json.json).await
            }
        },
        Command::Dead { command } => match command {
            DeadCommand::Ls { queue, limit, json } => {
                inspect::ls(
                    &client,
                    &queue.queue,
                    leaseq::State::Dead,
                    0,
                    limit.into(),
                    json.json,
                )
                .await
            }
            DeadCommand::Requeue {
                queue,
                ids,
                oldest,
                all,
                json,
            } => dead::requeue(&client, &queue.queue, &ids, oldest, all, json.json).await,
            DeadCommand::Purge {
                queue,
                oldest,
                all,
                json,
            } => dead::purge(&client, &queue.queue, oldest, all, json.json).await,
        },
        Command::Schedules(args) => schedules::schedules(&client, args).await,
        Command::Workers { queue, json } => {
            workers::workers(&client, &queue.queue, json.json).await
        }
        Command::Clean {
            queue,
            every,
            deep_every,
            once,
            deep,
        } => clean::clean(&client, &queue.queue, every, deep_every, once, deep).await,
        Command::Check { queue, json } => check::check(&client, &queue.queue, json.json).await,
        Command::Config(args) => match args.command {
            Some(ConfigCommand::Set(set)) => config::set(&client, &set).await,
            Some(ConfigCommand::Reset { queue, json }) => {
                config::reset(&client, &queue.queue, json.json).await
            }
            None => {
                let queue = args
                    .queue
                    .expect("clap requires --queue without a subcommand");
                config::show(&client, &queue, args.json.json).await
            }
        },
        Command::Events(args) => commands::events::events(&client, &args).await,
        Command::Create {
            queue,
            partitions,
            json,
        } => commands::partitions::create(&client, &queue.queue, partitions, json.json).await,
        Command::Dashboard(_) | Command::Metrics(_) => unreachable!("served above"),
    }
    .map_err(|f: Fail| if reads_only { f.of_a_read() } else { f })
}

/// Whether `command` only reads: its refusals do not say that nothing was written.
fn reads_only(command: &Command) -> bool {
    matches!(
        command,
        Command::Queues { .. }
            | Command::Stats { .. }
            | Command::Ls { .. }
            | Command::Get { .. }
            | Command::Tree { .. }
            | Command::Workers { .. }
            | Command::Check { .. }
            | Command::Events(_)
            | Command::Group(GroupArgs { command: None, .. })
            | Command::Dead {
                command: DeadCommand::Ls { .. }
            }
    )
}
