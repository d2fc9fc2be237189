//! The soak's worker processes, in every mode (the soak, the demo, the drain): started with the
//! soak's command line and environment (README.md), killed and replaced, and stopped.

use std::collections::BTreeMap;
use std::fs::File;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Every worker process of a run, by language.
pub(crate) struct Fleet {
    /// The server's URL, every worker's first argument.
    pub url: String,
    /// Language -> the command that starts its worker.
    pub commands: BTreeMap<String, Vec<String>>,
    /// Language -> the queues its workers take from (`LEASEQ_SOAK_QUEUES`).
    pub queues: BTreeMap<String, Vec<String>>,
    /// The results queue's prefix (`LEASEQ_SOAK_RESULTS`).
    pub results: &'static str,
    /// `LEASEQ_SOAK_MISBEHAVE` for every process, when set: `0` (the demo), `plain` (the drain).
    pub misbehave: Option<&'static str>,
    /// Workers run in runner mode (`run`: the demo) and stop gracefully on SIGTERM; else `work`.
    pub runners: bool,
    /// Where the workers' stderr goes (the demo's log file), when not to ours.
    pub log: Option<File>,
    pub workers: Vec<(String, Child)>,
    pub kills: BTreeMap<String, u32>,
    /// Workers that exited by themselves: language -> how many.
    pub crashes: BTreeMap<String, u32>,
}

impl Fleet {
    /// A fleet with no process yet.
    pub fn new(
        url: &str,
        commands: BTreeMap<String, Vec<String>>,
        queues: BTreeMap<String, Vec<String>>,
        results: &'static str,
    ) -> Fleet {
        Fleet {
            url: url.to_owned(),
            commands,
            queues,
            results,
            misbehave: None,
            runners: false,
            log: None,
            workers: Vec::new(),
            kills: BTreeMap::new(),
            crashes: BTreeMap::new(),
        }
    }

    /// Starts `lang`'s command in `mode` on `queues`.
    pub fn spawn(&self, lang: &str, mode: &[String], queues: &[String]) -> Child {
        let cmd = &self.commands[lang];
        let mut command = Command::new(&cmd[0]);
        command
            .args(&cmd[1..])
            .arg(&self.url)
            .arg(lang)
            .args(mode)
            .env("LEASEQ_SOAK_QUEUES", queues.join(","))
            .env("LEASEQ_SOAK_RESULTS", self.results)
            .env_remove("LEASEQ_SOAK_RESULTS_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        if let Some(misbehave) = self.misbehave {
            command.env("LEASEQ_SOAK_MISBEHAVE", misbehave);
        }
        if let Some(log) = &self.log {
            command.stderr(log.try_clone().expect("the workers' log file"));
        }
        command
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {cmd:?}: {e}"))
    }

    /// Starts one more worker of `lang` on its queues.
    pub fn start_worker(&mut self, lang: &str) {
        let mode = if self.runners { "run" } else { "work" };
        let child = self.spawn(lang, &[mode.into()], &self.queues[lang]);
        self.workers.push((lang.to_owned(), child));
    }

    /// SIGKILLs worker `at`, and starts another of its language when `replace`. Returns the
    /// language.
    pub fn kill(&mut self, at: usize, replace: bool) -> String {
        let (lang, mut child) = self.workers.swap_remove(at);
        let _ = child.kill();
        let _ = child.wait();
        *self.kills.entry(lang.clone()).or_default() += 1;
        if replace {
            self.start_worker(&lang);
        }
        lang
    }

    /// Workers that exited by themselves (the killer's are reaped at once): each is reported
    /// once in `problems` and replaced (their stderr went to ours, or to the log).
    pub fn crashed(&mut self, problems: &mut Vec<String>, elapsed: Duration) {
        let mut at = 0;
        while at < self.workers.len() {
            let (lang, child) = &mut self.workers[at];
            if let Some(status) = child.try_wait().unwrap() {
                let lang = lang.clone();
                problems.push(format!(
                    "a {lang} worker exited by itself at {:.1}s: {status}",
                    elapsed.as_secs_f64()
                ));
                *self.crashes.entry(lang.clone()).or_default() += 1;
                self.workers.swap_remove(at);
                self.start_worker(&lang);
            } else {
                at += 1;
            }
        }
    }

    /// Stops every worker: runners with SIGTERM (they drain and exit 0; any other exit is
    /// printed), workers with SIGKILL.
    pub fn stop(&mut self) {
        for (_, child) in &mut self.workers {
            if self.runners {
                let _ = Command::new("kill")
                    .arg("-TERM")
                    .arg(child.id().to_string())
                    .status();
            } else {
                let _ = child.kill();
            }
        }
        for (lang, child) in &mut self.workers {
            match child.wait() {
                Ok(status) if self.runners && !status.success() => {
                    eprintln!("a {lang} runner exited with {status} after SIGTERM")
                }
                _ => {}
            }
        }
    }
}
