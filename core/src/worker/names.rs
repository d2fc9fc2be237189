//! Handlers by name (spec/PROTOCOL.md, 13.1): one queue carries several kinds of job, each item
//! names its kind ([`crate::Item::name`]), and a runner runs each with the handler of that name,
//! else its fallback. A job no handler takes fails for good (dead, no retry) with an error of
//! type [`NO_HANDLER_ERROR_TYPE`] that names the job's name and the names the runner handles, the
//! same in every language: Rust's [`Handlers`] and the bindings' tables (which pass their names
//! as [`crate::worker::WorkerOptions::handler_names`]) decide through [`route`].

use std::collections::HashMap;
use std::sync::Arc;

use super::job::{Handler, HandlerFuture, Job, JobError, Outcome};
use crate::error::Result;
use crate::item::validate_name;

/// The error type of a job that no handler of a runner takes.
pub const NO_HANDLER_ERROR_TYPE: &str = "NoHandler";

/// Which handler runs a job: the one at this index of the runner's names, or the fallback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// The handler registered under the job's name, by its index in the names given.
    Named(usize),
    /// The fallback handler.
    Fallback,
}

/// Which handler runs a job named `name` (`None`: the item has no name) on a runner that handles
/// `names` and has a fallback or not; the error is the job's failure when none does
/// (unrecoverable, type [`NO_HANDLER_ERROR_TYPE`]).
pub fn route<S: AsRef<str>>(
    names: &[S],
    fallback: bool,
    name: Option<&str>,
) -> std::result::Result<Route, JobError> {
    if let Some(name) = name {
        if let Some(i) = names.iter().position(|n| n.as_ref() == name) {
            return Ok(Route::Named(i));
        }
    }
    if fallback {
        return Ok(Route::Fallback);
    }
    let handled = names
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<_>>()
        .join(", ");
    let message = match name {
        Some(name) => format!(
            "no handler for the job's name {name:?}; this runner handles: {handled}, and has no fallback"
        ),
        None => format!(
            "the job has no name and this runner has no fallback handler; it handles: {handled}"
        ),
    };
    Err(JobError::unrecoverable(message).with_type(NO_HANDLER_ERROR_TYPE))
}

/// Checks a runner's table of names (argument `handlers`): at least one name or a fallback,
/// every name valid ([`crate::Item::name`]'s rule) and given once.
pub fn validate_handler_names<S: AsRef<str>>(names: &[S], fallback: bool) -> Result<()> {
    if names.is_empty() && !fallback {
        return Err(crate::Error::invalid(
            "handlers",
            "give at least one handler by name, or a fallback",
        ));
    }
    for (i, name) in names.iter().enumerate() {
        let name = name.as_ref();
        validate_name(name).map_err(|e| match e {
            crate::Error::InvalidArgument { reason, .. } => {
                crate::Error::invalid("handlers", format!("the name {name:?} {reason}"))
            }
            other => other,
        })?;
        if names[..i].iter().any(|n| n.as_ref() == name) {
            return Err(crate::Error::invalid(
                "handlers",
                format!("the name {name:?} is given twice"),
            ));
        }
    }
    Ok(())
}

/// A table of handlers by name, with an optional fallback: itself a [`Handler`], so a runner
/// takes it where it takes one handler.
///
/// ```no_run
/// # async fn demo(queue: leaseq::Queue) -> leaseq::Result<()> {
/// use leaseq::worker::{Handlers, Job, Worker};
///
/// let handlers = Handlers::new()
///     .on("send_email", |job: Job| async move {
///         let to: String = job.json()?;
///         println!("mail to {to}");
///         Ok::<_, leaseq::worker::JobError>(())
///     })
///     .on("resize", |_job: Job| async move { Ok::<_, leaseq::worker::JobError>(()) });
/// Worker::new(queue, handlers.validated()?).run().await?;
/// # Ok(()) }
/// ```
#[derive(Default, Clone)]
pub struct Handlers {
    names: Vec<String>,
    by_name: HashMap<String, Arc<dyn Handler>>,
    fallback: Option<Arc<dyn Handler>>,
    twice: Option<String>,
}

impl Handlers {
    /// An empty table: add handlers with [`Handlers::on`] and maybe a [`Handlers::fallback`].
    pub fn new() -> Handlers {
        Handlers::default()
    }

    /// Runs the jobs named `name` with `handler`. Giving a name twice is refused by
    /// [`Handlers::validated`] (and by the runner when it starts).
    pub fn on(mut self, name: impl Into<String>, handler: impl Handler) -> Handlers {
        let name = name.into();
        if self.by_name.contains_key(&name) {
            self.twice.get_or_insert(name.clone());
        } else {
            self.names.push(name.clone());
        }
        self.by_name.insert(name, Arc::new(handler));
        self
    }

    /// Runs the jobs no named handler takes (those without a name too). Without one, such a
    /// job fails for good with a [`NO_HANDLER_ERROR_TYPE`] error.
    pub fn fallback(mut self, handler: impl Handler) -> Handlers {
        self.fallback = Some(Arc::new(handler));
        self
    }

    /// The names handled, in the order given.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The table, checked (argument `handlers`): at least one handler, every name valid and
    /// given once.
    pub fn validated(self) -> Result<Handlers> {
        validate_handler_names(&self.names, self.fallback.is_some())?;
        if let Some(name) = &self.twice {
            return Err(crate::Error::invalid(
                "handlers",
                format!("the name {name:?} is given twice"),
            ));
        }
        Ok(self)
    }
}

impl std::fmt::Debug for Handlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handlers")
            .field("names", &self.names)
            .field("fallback", &self.fallback.is_some())
            .finish()
    }
}

impl Handler for Handlers {
    fn call(&self, job: Job) -> HandlerFuture {
        match route(&self.names, self.fallback.is_some(), job.name()) {
            Ok(Route::Named(i)) => self.by_name[&self.names[i]].call(job),
            Ok(Route::Fallback) => match &self.fallback {
                Some(h) => h.call(job),
                None => unreachable!("route gives the fallback only when there is one"),
            },
            Err(e) => Box::pin(async move { Outcome::Fail(e) }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_takes_its_handler_else_the_fallback_else_an_unrecoverable_error() {
        let names = ["email", "resize"];
        assert_eq!(route(&names, false, Some("resize")), Ok(Route::Named(1)));
        assert_eq!(route(&names, true, Some("other")), Ok(Route::Fallback));
        assert_eq!(route(&names, true, None), Ok(Route::Fallback));
        let e = route(&names, false, Some("other")).unwrap_err();
        assert_eq!(e.error_type, NO_HANDLER_ERROR_TYPE);
        assert_eq!(e.retry, crate::policy::Retry::Never);
        assert!(
            e.message.contains("\"other\"") && e.message.contains("email, resize"),
            "{}",
            e.message
        );
        let e = route(&names, false, None).unwrap_err();
        assert!(
            e.message.starts_with("the job has no name"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_table_is_refused_empty_with_a_bad_name_or_a_name_twice() {
        let bad = |names: &[&str], fallback| {
            let e = validate_handler_names(names, fallback).unwrap_err();
            assert!(
                matches!(&e, crate::Error::InvalidArgument { argument, .. } if *argument == "handlers"),
                "{e:?}"
            );
            e.to_string()
        };
        assert!(bad(&[], false).contains("at least one"));
        assert!(bad(&["a", ""], false).contains("must not be empty"));
        assert!(bad(&["a\n"], true).contains("control"));
        assert!(bad(&["a", "a"], false).contains("twice"));
        assert!(validate_handler_names::<&str>(&[], true).is_ok());
        let twice = Handlers::new()
            .on("a", |_j: Job| async { Ok::<_, JobError>(()) })
            .on("a", |_j: Job| async { Ok::<_, JobError>(()) });
        assert!(twice.validated().unwrap_err().to_string().contains("twice"));
    }
}
