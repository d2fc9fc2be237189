//! The JSON API (described by `cli/openapi.yaml`): read through the core's read API, act through
//! its operations. Every list is a page of at most 1000 entries.

use std::collections::BTreeMap;

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::AppState;
use crate::commands::partitions::{self, Target};
use crate::fail::Fail;
use crate::view::{ConfigView, EntryView, GroupView, JobView, StatsView};

/// Most entries of one page, and of one dead-letter grouping (the core's bound).
const MAX_PAGE: usize = 1000;
/// Ids kept per error group.
const GROUP_IDS: usize = 50;

/// A failure as JSON, with the HTTP status that fits it.
pub struct ApiError(Fail);

impl From<Fail> for ApiError {
    fn from(f: Fail) -> ApiError {
        ApiError(f)
    }
}

impl From<leaseq::Error> for ApiError {
    fn from(e: leaseq::Error) -> ApiError {
        ApiError(e.into())
    }
}

impl IntoResponse for ApiError {
    /// The status says a request was refused (400); the message says why, without the CLI's
    /// "nothing was written", which would only puzzle a read.
    fn into_response(self) -> Response {
        let ApiError(fail) = self;
        let fail = fail.of_a_read();
        let status = match &fail {
            Fail::NotFound(_) | Fail::NoQueue(_) => StatusCode::NOT_FOUND,
            Fail::Usage(_) => StatusCode::BAD_REQUEST,
            Fail::Unreachable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Fail::Refused(_) => StatusCode::BAD_GATEWAY,
            Fail::Full(_) => StatusCode::CONFLICT,
        };
        (status, Json(serde_json::json!({"error": fail.to_string()}))).into_response()
    }
}

type ApiResult<T> = Result<Json<T>, ApiError>;

/// The query string, as axum's `Query`, refused as JSON (`{"error": ...}`, 400) rather than
/// axum's plain text: every answer of the API is JSON.
pub struct ApiQuery<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(v)| ApiQuery(v))
            .map_err(|e: QueryRejection| Fail::Usage(query_problem(&e.body_text())).into())
    }
}

/// What serde says of a query string, as the API's user reads it: "missing field `queue`" is
/// a missing parameter.
fn query_problem(text: &str) -> String {
    let text = text
        .strip_prefix("Failed to deserialize query string: ")
        .unwrap_or(text);
    match text
        .strip_prefix("missing field `")
        .and_then(|t| t.split_once('`'))
    {
        Some((name, _)) => format!("missing parameter `{name}` (e.g. ?{name}=...)"),
        None => format!("bad query parameters: {text}"),
    }
}

/// A JSON body, as axum's `Json`, refused as JSON (400) rather than axum's plain text.
pub struct ApiJson<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        Json::<T>::from_request(req, state)
            .await
            .map(|Json(v)| ApiJson(v))
            .map_err(|e: JsonRejection| Fail::Usage(e.body_text()).into())
    }
}

/// Any other path: a JSON 404.
pub async fn not_found(uri: Uri) -> ApiError {
    Fail::NotFound(format!("no such page or endpoint: {}", uri.path())).into()
}

/// A path used with a method it does not take: a JSON 405.
pub async fn method_not_allowed(uri: Uri) -> Response {
    (
        StatusCode::METHOD_NOT_ALLOWED,
        Json(serde_json::json!({
            "error": format!("{} does not take this method (reads are GET, actions POST)", uri.path())
        })),
    )
        .into_response()
}

/// `?queue=`.
#[derive(Deserialize)]
pub struct QueueQuery {
    queue: String,
}

/// `?queue=&state=&start=&count=&name=&error_type=`.
#[derive(Deserialize)]
pub struct PageQuery {
    queue: String,
    state: String,
    #[serde(default)]
    start: usize,
    #[serde(default = "default_count")]
    count: usize,
    /// Only items of this name (empty: any).
    #[serde(default)]
    name: String,
    /// Only items whose last error has this type (empty: any).
    #[serde(default)]
    error_type: String,
}

fn default_count() -> usize {
    50
}

/// `?queue=&id=`.
#[derive(Deserialize)]
pub struct ItemQuery {
    queue: String,
    id: String,
}

impl AppState {
    /// The queue `prefix` (a plain queue, or a partitioned queue's base, whose partitions the
    /// action then reaches), if this dashboard shows it. One round trip (its layout).
    pub(super) async fn target(&self, prefix: &str) -> Result<Target, ApiError> {
        if !self.queues.is_empty() && !self.queues.iter().any(|q| q == prefix) {
            return Err(
                Fail::NotFound(format!("queue `{prefix}` is not shown by this dashboard")).into(),
            );
        }
        Ok(Target::open(&self.client().await?, prefix).await?)
    }

    /// The queue where group `group` of queue `prefix` lives: the queue, or on a partitioned
    /// queue's base the group's partition, which holds all its items.
    pub(super) async fn group_queue(
        &self,
        prefix: &str,
        group: &str,
    ) -> Result<leaseq::Queue, ApiError> {
        Ok(self.target(prefix).await?.group_queue(group).clone())
    }
}

fn state(name: &str) -> Result<leaseq::State, ApiError> {
    Ok(leaseq::State::parse(name)?)
}

/// `GET /api/csrf`: the token actions carry in `X-Leaseq-Csrf`.
pub async fn csrf(State(app): State<AppState>) -> Json<serde_json::Value> {
    Json(serde_json::json!({ "csrf": app.csrf }))
}

/// `GET /api/queues`: every queue shown, with its stats.
pub async fn queues(State(app): State<AppState>) -> ApiResult<Vec<StatsView>> {
    let client = app.client().await?;
    let prefixes = if app.queues.is_empty() {
        client.queues("").await?
    } else {
        app.queues.clone()
    };
    // A partitioned queue shows as one, its partitions inside it (spec 5.25).
    let listed = partitions::logical(&client, prefixes).await?;
    let mut out = Vec::with_capacity(listed.len());
    for (prefix, p) in listed {
        out.push(partitions::stats_view(&client.queue(&prefix)?, &prefix, p.as_ref()).await?);
    }
    Ok(Json(out))
}

/// `GET /api/stats?queue=`.
pub async fn stats(
    State(app): State<AppState>,
    ApiQuery(q): ApiQuery<QueueQuery>,
) -> ApiResult<StatsView> {
    let target = app.target(&q.queue).await?;
    let (queue, p) = match &target {
        Target::Plain(queue) => (queue, None),
        Target::Partitioned(p) => (&p.partitions()[0], Some(p)),
    };
    Ok(Json(partitions::stats_view(queue, &q.queue, p).await?))
}

/// `GET /api/config?queue=`: what the queue's configuration stores, the defaults, and what
/// applies (as `leaseq config --json`).
pub async fn config(
    State(app): State<AppState>,
    ApiQuery(q): ApiQuery<QueueQuery>,
) -> ApiResult<ConfigView> {
    // A partitioned queue's: partition 0's, which the dashboard's changes give every one.
    let stored = app.target(&q.queue).await?.queues()[0].config().await?;
    Ok(Json(ConfigView::new(&q.queue, &stored)))
}

/// `POST /api/config` body: the settings the dashboard changes (only the counters' switch; the
/// others are `leaseq config set`'s). Anything else is refused, not ignored.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigBody {
    queue: String,
    /// Whether the queue keeps per-minute counters.
    stats: bool,
}

/// `POST /api/config`: turns the queue's counters on or off; answers with the configuration
/// that results.
pub async fn set_config(
    State(app): State<AppState>,
    ApiJson(b): ApiJson<ConfigBody>,
) -> ApiResult<ConfigView> {
    let target = app.target(&b.queue).await?;
    target
        .set_config(&leaseq::QueueConfig::new().stats(b.stats))
        .await?;
    let stored = target.queues()[0].config().await?;
    Ok(Json(ConfigView::new(&b.queue, &stored)))
}

/// `POST /api/pause` and `/api/resume` body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueBody {
    queue: String,
}

/// `POST /api/pause`: nothing is leased from the queue, by any client, until it is resumed;
/// answers whether that changed anything.
pub async fn pause(
    State(app): State<AppState>,
    ApiJson(b): ApiJson<QueueBody>,
) -> ApiResult<serde_json::Value> {
    let changed = app.target(&b.queue).await?.pause().await?;
    Ok(Json(
        serde_json::json!({ "queue": b.queue, "paused": true, "changed": changed }),
    ))
}

/// `POST /api/resume`: the queue is leased from again; answers whether it was paused.
pub async fn resume(
    State(app): State<AppState>,
    ApiJson(b): ApiJson<QueueBody>,
) -> ApiResult<serde_json::Value> {
    let changed = app.target(&b.queue).await?.resume().await?;
    Ok(Json(
        serde_json::json!({ "queue": b.queue, "paused": false, "changed": changed }),
    ))
}

/// `?queue=&group=`.
#[derive(Deserialize)]
pub struct GroupQuery {
    queue: String,
    group: String,
}

/// `GET /api/group?queue=&group=`: one group, looked up by name (the protocol keeps no list of
/// groups): its waiting and leased items, its limit, whether it is paused, how long it is still
/// rate limited.
pub async fn group(
    State(app): State<AppState>,
    ApiQuery(q): ApiQuery<GroupQuery>,
) -> ApiResult<GroupView> {
    Ok(Json(
        GroupView::read(
            &app.group_queue(&q.queue, &q.group).await?,
            &q.queue,
            &q.group,
        )
        .await?,
    ))
}

/// `POST /api/group/pause` and `/api/group/resume` body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupBody {
    queue: String,
    group: String,
}

/// `POST /api/group/pause`: none of the group's items is leased, by any client, until it is
/// resumed; the rest of the queue goes on. Answers whether that changed anything.
pub async fn pause_group(
    State(app): State<AppState>,
    ApiJson(b): ApiJson<GroupBody>,
) -> ApiResult<serde_json::Value> {
    let changed = app
        .group_queue(&b.queue, &b.group)
        .await?
        .pause_group(&b.group)
        .await?;
    Ok(Json(serde_json::json!({
        "queue": b.queue, "group": b.group, "paused": true, "changed": changed,
    })))
}

/// `POST /api/group/resume`: the group's items are leased again; answers whether it was paused.
pub async fn resume_group(
    State(app): State<AppState>,
    ApiJson(b): ApiJson<GroupBody>,
) -> ApiResult<serde_json::Value> {
    let changed = app
        .group_queue(&b.queue, &b.group)
        .await?
        .resume_group(&b.group)
        .await?;
    Ok(Json(serde_json::json!({
        "queue": b.queue, "group": b.group, "paused": false, "changed": changed,
    })))
}

/// A page of a state.
#[derive(Serialize)]
pub struct Page {
    items: Vec<EntryView>,
    /// The `start` of the next page, when there is more.
    next_start: Option<usize>,
    /// How many items the state holds (done: kept results, expired ones included until
    /// dropped).
    total: u64,
    /// With a filter: how many positions from `start` were looked at (at most 1000 per call;
    /// `next_start` goes on from there); absent without one.
    examined: Option<usize>,
}

/// `GET /api/items?queue=&state=&start=&count=&name=&error_type=`: a page of a state, or with
/// `name` or `error_type` the matches among at most 1000 positions from `start`.
pub async fn items(
    State(app): State<AppState>,
    ApiQuery(q): ApiQuery<PageQuery>,
) -> ApiResult<Page> {
    let state = state(&q.state)?;
    let target = app.target(&q.queue).await?;
    let total = target.count(state).await?;
    if q.name.is_empty() && q.error_type.is_empty() {
        let entries = target.list(state, q.start, q.count).await?;
        let next = q.start + q.count;
        return Ok(Json(Page {
            items: entries.iter().map(|e| target.entry_view(e)).collect(),
            next_start: target.more_after(state, next).await?.then_some(next),
            total,
            examined: None,
        }));
    }
    let some = |s: &str| (!s.is_empty()).then(|| s.to_owned());
    let (name, kind) = (some(&q.name), some(&q.error_type));
    // On a partitioned queue's base: one partition per call, `next_start` going on.
    let found = target
        .find(state, name.as_deref(), kind.as_deref(), q.start, q.count)
        .await?;
    Ok(Json(Page {
        items: found.entries.iter().map(|e| target.entry_view(e)).collect(),
        next_start: found.next,
        total,
        examined: Some(found.examined),
    }))
}

/// `POST /api/promote` body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromoteBody {
    queue: String,
    id: String,
}

/// `POST /api/promote`: a delayed item waits now; 404 when it is not delayed.
pub async fn promote(
    State(app): State<AppState>,
    ApiJson(b): ApiJson<PromoteBody>,
) -> ApiResult<serde_json::Value> {
    if app.target(&b.queue).await?.promote(&b.id).await? {
        Ok(Json(serde_json::json!({ "id": b.id, "promoted": true })))
    } else {
        Err(Fail::NotFound(format!("no delayed item `{}` in queue `{}`", b.id, b.queue)).into())
    }
}

/// `GET /api/count?queue=&state=`.
pub async fn count(
    State(app): State<AppState>,
    ApiQuery(q): ApiQuery<BTreeMap<String, String>>,
) -> ApiResult<serde_json::Value> {
    let (Some(queue), Some(name)) = (q.get("queue"), q.get("state")) else {
        return Err(Fail::Usage("give `queue` and `state`".into()).into());
    };
    let n = app.target(queue).await?.count(state(name)?).await?;
    Ok(Json(
        serde_json::json!({ "queue": queue, "state": name, "count": n }),
    ))
}

/// `GET /api/workers?queue=`: the live runners, as they registered themselves.
pub async fn workers(
    State(app): State<AppState>,
    ApiQuery(q): ApiQuery<QueueQuery>,
) -> ApiResult<serde_json::Value> {
    let found = app.target(&q.queue).await?.runners().await?;
    let workers: Vec<serde_json::Value> = found
        .runners
        .iter()
        .map(|r| {
            serde_json::json!({
                "id": r.id,
                "expires_ms": r.expires_ms,
                "housekeeper": r.housekeeper,
                "info": r.info,
            })
        })
        .collect();
    Ok(Json(serde_json::json!({
        "queue": q.queue,
        "now_ms": found.now_ms,
        "housekeeper": found.housekeeper,
        "workers": workers,
    })))
}

/// `GET /api/schedules?queue=`: the queue's recurring jobs (the first 1000 by next fire time)
/// with their next fire times (spec/PROTOCOL.md 5.23).
pub async fn schedules(
    State(app): State<AppState>,
    ApiQuery(q): ApiQuery<QueueQuery>,
) -> ApiResult<serde_json::Value> {
    let page = app
        .target(&q.queue)
        .await?
        .schedules_queue()
        .schedules(0, 1000)
        .await?;
    let list: Vec<serde_json::Value> = page
        .schedules
        .iter()
        .map(crate::commands::schedules::schedule_json)
        .collect();
    Ok(Json(serde_json::json!({
        "queue": q.queue,
        "now_ms": page.now,
        "total": page.total,
        "schedules": list,
    })))
}

/// `GET /api/item?queue=&id=`.
pub async fn item(
    State(app): State<AppState>,
    ApiQuery(q): ApiQuery<ItemQuery>,
) -> ApiResult<JobView> {
    let target = app.target(&q.queue).await?;
    match target.get(&q.id).await? {
        Some(job) => Ok(Json(target.job_view(&job))),
        None => Err(Fail::NotFound(format!("no item `{}` in queue `{}`", q.id, q.queue)).into()),
    }
}

/// What an item waits for and what waits for it (spec 5.24).
#[derive(Serialize)]
pub struct DependenciesView {
    /// The ids it was added to wait for, in order.
    depends_on: Vec<String>,
    /// Those it still waits for.
    pending: Vec<String>,
    /// How many blocked items wait for it.
    dependants_count: u64,
    /// Up to 100 of them.
    dependants: Vec<String>,
}

/// `GET /api/dependencies?queue=&id=`.
pub async fn dependencies(
    State(app): State<AppState>,
    ApiQuery(q): ApiQuery<ItemQuery>,
) -> ApiResult<DependenciesView> {
    let d = app.target(&q.queue).await?.dependencies(&q.id).await?;
    Ok(Json(DependenciesView {
        depends_on: d.depends_on,
        pending: d.pending,
        dependants_count: d.dependants_count,
        dependants: d.dependants,
    }))
}

/// Dead letters that share an error type.
#[derive(Serialize)]
pub struct ErrorGroup {
    error_type: String,
    count: usize,
    /// One of the group's messages.
    example: String,
    /// The group's first ids (at most 50), oldest first.
    ids: Vec<String>,
}

/// Dead letters grouped by error type, over the oldest (at most 1000).
#[derive(Serialize)]
pub struct DeadErrors {
    groups: Vec<ErrorGroup>,
    /// How many dead letters were read to group (the oldest).
    examined: usize,
    /// How many there are.
    total: u64,
}

/// `GET /api/dead/errors?queue=`: one page of 1000 oldest dead letters, grouped.
pub async fn dead_errors(
    State(app): State<AppState>,
    ApiQuery(q): ApiQuery<QueueQuery>,
) -> ApiResult<DeadErrors> {
    let target = app.target(&q.queue).await?;
    let entries = target.list(leaseq::State::Dead, 0, MAX_PAGE).await?;
    let total = target.count(leaseq::State::Dead).await?;
    let mut groups: BTreeMap<String, ErrorGroup> = BTreeMap::new();
    for e in &entries {
        let (message, kind) = e.error.clone().unwrap_or_default();
        // Without an error of its own (an expiry, a dependency's death): why it died.
        let message = match (message.is_empty(), &e.reason) {
            (true, Some(reason)) => reason.clone(),
            _ => message,
        };
        let kind = if kind.is_empty() {
            "(none)".to_owned()
        } else {
            kind
        };
        let g = groups.entry(kind.clone()).or_insert_with(|| ErrorGroup {
            error_type: kind,
            count: 0,
            example: message,
            ids: Vec::new(),
        });
        g.count += 1;
        if g.ids.len() < GROUP_IDS {
            g.ids.push(e.id.clone());
        }
    }
    let mut groups: Vec<ErrorGroup> = groups.into_values().collect();
    groups.sort_by_key(|g| std::cmp::Reverse(g.count));
    Ok(Json(DeadErrors {
        groups,
        examined: entries.len(),
        total,
    }))
}

/// `POST /api/requeue` body.
#[derive(Deserialize)]
pub struct RequeueBody {
    queue: String,
    /// Dead ids to requeue (at most 1000).
    #[serde(default)]
    ids: Vec<String>,
    /// Or the N oldest.
    oldest: Option<u64>,
}

/// `POST /api/requeue`: dead letters back to waiting.
pub async fn requeue(
    State(app): State<AppState>,
    ApiJson(b): ApiJson<RequeueBody>,
) -> ApiResult<serde_json::Value> {
    let target = app.target(&b.queue).await?;
    let n = match (b.ids.is_empty(), b.oldest) {
        (false, None) => {
            let ids: Vec<&str> = b.ids.iter().map(String::as_str).collect();
            let done = target.dead_requeue_each(&ids).await?;
            done.iter().filter(|&&d| d).count() as u64
        }
        (true, Some(n)) => target.dead_requeue_oldest(Some(n)).await?,
        _ => {
            return Err(Fail::Usage("give either `ids` or `oldest`".into()).into());
        }
    };
    Ok(Json(serde_json::json!({ "requeued": n })))
}

/// `POST /api/cancel` body.
#[derive(Deserialize)]
pub struct CancelBody {
    queue: String,
    id: String,
}

/// `POST /api/cancel`: removes a waiting, delayed or dead item; marks a leased one.
pub async fn cancel(
    State(app): State<AppState>,
    ApiJson(b): ApiJson<CancelBody>,
) -> ApiResult<serde_json::Value> {
    match app.target(&b.queue).await?.cancel(&b.id).await? {
        Some(was) => Ok(Json(
            serde_json::json!({ "id": b.id, "was": was.to_string() }),
        )),
        None => Err(Fail::NotFound(format!("no item `{}` in queue `{}`", b.id, b.queue)).into()),
    }
}

/// `POST /api/purge` body.
#[derive(Deserialize)]
pub struct PurgeBody {
    queue: String,
    /// Delete the N oldest dead letters; absent with `all: true`: every one.
    oldest: Option<u64>,
    #[serde(default)]
    all: bool,
}

/// `POST /api/purge`: deletes dead letters.
pub async fn purge(
    State(app): State<AppState>,
    ApiJson(b): ApiJson<PurgeBody>,
) -> ApiResult<serde_json::Value> {
    let n = match (b.oldest, b.all) {
        (Some(n), false) => Some(n),
        (None, true) => None,
        _ => return Err(Fail::Usage("give either `oldest` or `all: true`".into()).into()),
    };
    let purged = app.target(&b.queue).await?.dead_purge(n).await?;
    Ok(Json(serde_json::json!({ "purged": purged })))
}
