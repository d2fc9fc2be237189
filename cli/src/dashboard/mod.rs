//! The web dashboard and the metrics server: axum, assets embedded in the binary, safe by
//! default (loopback, a token elsewhere, CSRF-protected actions, payloads always text).

mod api;
mod guard;
mod live;

use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

use crate::args::{ConnArgs, ServeArgs};
use crate::commands::clean::shutdown_signal;
use crate::fail::{Fail, Outcome};
use crate::metrics::{Exporter, CONTENT_TYPE};

const INDEX: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE: &str = include_str!("assets/style.css");
const OPENAPI: &str = include_str!("../../openapi.yaml");
/// Shortest token accepted: long enough that guessing it is hopeless.
const MIN_TOKEN_LEN: usize = 16;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    /// Where Redis is, and the client once connected: the server starts while Redis is down
    /// and connects when a request needs it (the client then reconnects by itself).
    conn: Arc<ConnArgs>,
    client: Arc<tokio::sync::Mutex<Option<leaseq::Client>>>,
    /// The queues shown; empty: every queue found.
    queues: Vec<String>,
    csrf: String,
    token: Option<String>,
    exporter: Arc<Exporter>,
}

/// Refuses to serve off loopback without a token, and a token too short to be a secret.
pub fn check_exposure(args: &ServeArgs, ui: bool) -> Outcome {
    let listen = args.address(ui);
    if let Some(token) = &args.token {
        if token.len() < MIN_TOKEN_LEN
            || !token
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(Fail::Usage(format!(
                "--token: use at least {MIN_TOKEN_LEN} letters, digits, `-` or `_` (e.g. from \
                 `openssl rand -hex 16`)"
            )));
        }
    } else if !listen.ip().is_loopback() {
        return Err(Fail::Usage(format!(
            "--listen {listen}: not a loopback address, so anyone who reaches it could change \
             queues; give --token (or LEASEQ_DASHBOARD_TOKEN), or listen on 127.0.0.1"
        )));
    }
    Ok(())
}

/// Serves until SIGINT or SIGTERM: the dashboard, its API and /metrics (`ui`), or /metrics
/// alone. Prints the address it listens on.
pub async fn serve(conn: ConnArgs, args: ServeArgs, ui: bool) -> Outcome {
    // The queues named are checked first, as every other command checks its -q: a name the
    // API would refuse for every request is a usage error now.
    let cluster = crate::connect::is_cluster(&conn)?;
    for queue in &args.queue {
        leaseq::validate_prefix(queue, cluster).map_err(|e| Fail::Usage(format!("-q: {e}")))?;
    }
    let state = AppState {
        conn: Arc::new(conn),
        client: Arc::new(tokio::sync::Mutex::new(None)),
        queues: args.queue.clone(),
        csrf: uuid::Uuid::new_v4().simple().to_string(),
        token: args.token.clone(),
        exporter: Arc::new(Exporter::default()),
    };
    // A first connection now, so that a wrong URL stops the command at once; Redis being down
    // (or refusing for now) is not fatal: the page says so until it comes back.
    match state.client().await {
        Err(Fail::Usage(m)) => return Err(Fail::Usage(m)),
        Err(e) => tracing::warn!("{e}; serving anyway, and connecting when a request needs Redis"),
        Ok(_) => {}
    }
    let mut app = Router::new().route("/metrics", get(metrics));
    if ui {
        app = app
            .route("/", get(index))
            .route(
                "/assets/app.js",
                get(|| asset(APP_JS, "text/javascript; charset=utf-8")),
            )
            .route(
                "/assets/style.css",
                get(|| asset(STYLE, "text/css; charset=utf-8")),
            )
            .route(
                "/api/openapi.yaml",
                get(|| asset(OPENAPI, "application/yaml")),
            )
            .route("/api/csrf", get(api::csrf))
            .route("/api/queues", get(api::queues))
            .route("/api/stats", get(api::stats))
            .route("/api/config", get(api::config).post(api::set_config))
            .route("/api/items", get(api::items))
            .route("/api/count", get(api::count))
            .route("/api/item", get(api::item))
            .route("/api/dependencies", get(api::dependencies))
            .route("/api/workers", get(api::workers))
            .route("/api/schedules", get(api::schedules))
            .route("/api/dead/errors", get(api::dead_errors))
            .route("/api/requeue", post(api::requeue))
            .route("/api/cancel", post(api::cancel))
            .route("/api/purge", post(api::purge))
            .route("/api/pause", post(api::pause))
            .route("/api/resume", post(api::resume))
            .route("/api/group", get(api::group))
            .route("/api/group/pause", post(api::pause_group))
            .route("/api/group/resume", post(api::resume_group))
            .route("/api/promote", post(api::promote))
            .route("/api/events", get(live::events))
            .fallback(api::not_found)
            .method_not_allowed_fallback(api::method_not_allowed);
    }
    let app = app
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            guard::guard,
        ))
        .layer(axum::middleware::map_response(security_headers))
        .with_state(state);
    let listen = args.address(ui);
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| Fail::Usage(format!("--listen {listen}: cannot listen there ({e})")))?;
    let addr = listener
        .local_addr()
        .map_err(|e| Fail::Usage(format!("--listen: {e}")))?;
    let what = if ui { "dashboard" } else { "metrics" };
    let path = if ui { "" } else { "metrics" };
    // Installed before the address is printed: a signal sent once it shows stops gracefully.
    let stop = shutdown_signal();
    say!("leaseq {what} on http://{addr}/{path}");
    tracing::info!(%addr, what, "listening");
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            let signal = stop.await;
            tracing::info!(signal, "stopping");
        })
        .await
        .map_err(|e| Fail::Refused(format!("server failed: {e}")))
}

async fn index(State(app): State<AppState>) -> Html<String> {
    // The CSRF token is hex: nothing to escape.
    Html(INDEX.replace("{{CSRF}}", &app.csrf))
}

async fn asset(body: &'static str, content_type: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

impl AppState {
    /// The client, connecting first when there is none yet.
    async fn client(&self) -> Result<leaseq::Client, Fail> {
        let mut slot = self.client.lock().await;
        if let Some(client) = slot.as_ref() {
            return Ok(client.clone());
        }
        let client = crate::connect::connect(&self.conn).await?;
        *slot = Some(client.clone());
        Ok(client)
    }
}

async fn metrics(State(app): State<AppState>) -> Response {
    let client = match app.client().await {
        Ok(client) => client,
        Err(e) => {
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                format!("leaseq: cannot read the queues: {e}\n"),
            )
                .into_response()
        }
    };
    match app.exporter.render(&client, &app.queues).await {
        Ok(text) => ([(header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response(),
        Err(e) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("leaseq: cannot read the queues: {e}\n"),
        )
            .into_response(),
    }
}

/// No framing, no sniffing, and a policy that runs only our own script: even a payload that
/// slipped into markup could not execute.
async fn security_headers(mut response: Response) -> Response {
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
            .parse()
            .expect("a valid header"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        "nosniff".parse().expect("valid"),
    );
    h.insert(header::X_FRAME_OPTIONS, "DENY".parse().expect("valid"));
    h.insert(
        header::REFERRER_POLICY,
        "no-referrer".parse().expect("valid"),
    );
    h.insert(header::CACHE_CONTROL, "no-store".parse().expect("valid"));
    response
}
