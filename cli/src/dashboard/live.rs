//! `GET /api/events?queue=`: the queue's event stream (spec/PROTOCOL.md 14) as server-sent
//! events, which the page follows with an `EventSource` to update itself as things happen. Under
//! the same guard as the rest of the API (the token, the Host check). Each message is one entry
//! as JSON (`leaseq events --json`'s), its SSE id the entry's id: a browser that reconnects
//! sends it back (`Last-Event-ID`) and the stream resumes after it, missing nothing still kept.
//! On a partitioned queue's base, every partition's entries (each with its `partition`), the
//! SSE id being the follower's position (an id per partition).

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, Stream};
use serde::Deserialize;

use super::api::{ApiError, ApiQuery};
use super::AppState;
use crate::commands::partitions::Target;
use crate::view::EventView;

/// `GET /api/events` query: the queue, and optionally the entry to resume after.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    queue: String,
    after: Option<String>,
}

/// The stream: first a `status` message (`{"on": bool}`: whether the queue's events are on),
/// then an `entry` message per entry, from now, or after `after` (or the `Last-Event-ID` the
/// browser sends when it reconnects). A position refused (malformed, or one the stream never
/// gave) is a 400 before the stream starts; an error while following ends the stream with an
/// `error` message (the browser reconnects and resumes).
pub async fn events(
    State(app): State<AppState>,
    headers: HeaderMap,
    ApiQuery(q): ApiQuery<EventsQuery>,
) -> Result<Response, ApiError> {
    let target = app.target(&q.queue).await?;
    let resume = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .or(q.after);
    // (`set_config` sets every partition alike: partition 0 tells.)
    let on = target.queues()[0].read_events(None, 1).await?.on;
    let from = match resume {
        Some(id) => leaseq::EventsFrom::After(id),
        None => leaseq::EventsFrom::Now,
    };
    let follower = match &target {
        Target::Plain(queue) => queue.events(from).await?,
        Target::Partitioned(p) => p.events(from).await?,
    };
    let status = Event::default()
        .event("status")
        .data(serde_json::json!({ "on": on }).to_string());
    let first = stream::once(async move { Ok::<Event, Infallible>(status) });
    Ok(
        Sse::new(futures_util::StreamExt::chain(first, entries(follower)))
            .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
            .into_response(),
    )
}

/// Each entry the follower hands over, until it fails (the client was closed, a key of another
/// type): then one `error` message and the end.
fn entries(follower: leaseq::Events) -> impl Stream<Item = Result<Event, Infallible>> {
    stream::unfold(Some(follower), |state| async move {
        let mut follower = state?;
        match follower.next().await {
            Ok(e) => {
                let data = serde_json::to_string(&EventView::from(&e)).unwrap_or_default();
                let mut event = Event::default().event("entry").data(data);
                // Where a reconnecting browser resumes: the entry's id, or a partitioned
                // queue's position (an id per partition); none before a partitioned
                // follower's first entry (a gap).
                match (e.partition, follower.position()) {
                    (None, _) => event = event.id(e.id.clone()),
                    (Some(_), Some(position)) => event = event.id(position),
                    (Some(_), None) => {}
                }
                Some((Ok(event), Some(follower)))
            }
            Err(e) => {
                let data = serde_json::json!({ "error": e.to_string() }).to_string();
                Some((Ok(Event::default().event("error").data(data)), None))
            }
        }
    })
}
