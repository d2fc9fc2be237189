//! The dashboard's JSON API with an HTTP client, as a script would use it: paging, escaping,
//! the token, CSRF and origin checks (a refused action changes nothing), and /metrics.

use crate::common;

use std::time::Duration;

use common::{code, run, stderr, Served};
use leaseq::{Client, Item, QueueConfig, State};
use leaseq_harness::RedisServer;
use reqwest::StatusCode;

async fn setup() -> (RedisServer, leaseq::Queue, Served) {
    let server = RedisServer::start();
    let q = Client::connect(&server.url())
        .await
        .unwrap()
        .queue("jobs")
        .unwrap();
    let served = Served::start(&[server.url()], "dashboard", &[]);
    (server, q, served)
}

async fn csrf(http: &reqwest::Client, base: &str) -> String {
    let v: serde_json::Value = http
        .get(format!("{base}api/csrf"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    v["csrf"].as_str().unwrap().to_owned()
}

/// Posts `body` to `path` without the CSRF token, then with it from another origin: both
/// refused (403), as every action must be. Returns the token, for the calls that follow.
async fn guarded(
    http: &reqwest::Client,
    base: &str,
    path: &str,
    body: &serde_json::Value,
) -> String {
    let no_token = http
        .post(format!("{base}{path}"))
        .json(body)
        .send()
        .await
        .unwrap();
    assert_eq!(
        no_token.status(),
        StatusCode::FORBIDDEN,
        "{path} without a token"
    );
    let token = csrf(http, base).await;
    let foreign = http
        .post(format!("{base}{path}"))
        .header("x-leaseq-csrf", &token)
        .header("origin", "http://evil.example")
        .json(body)
        .send()
        .await
        .unwrap();
    assert_eq!(
        foreign.status(),
        StatusCode::FORBIDDEN,
        "{path} from another origin"
    );
    token
}

#[tokio::test]
async fn lists_are_paged_and_payloads_are_escaped_text() {
    let (_server, q, served) = setup().await;
    let items: Vec<Item> = (0..25)
        .map(|i| Item::with_id(format!("{i:02}"), b"x".to_vec()).unwrap())
        .collect();
    q.add_batch(&items).await.unwrap();
    q.add(&Item::with_id("evil", b"<script>alert(1)</script>\xff\xfe".to_vec()).unwrap())
        .await
        .unwrap();
    let http = reqwest::Client::new();
    let base = &served.base;
    let page: serde_json::Value = http
        .get(format!("{base}api/items?queue=jobs&state=waiting&count=10"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(page["items"].as_array().unwrap().len(), 10);
    assert_eq!(page["items"][0]["id"], "00");
    assert_eq!(page["next_start"], 10);
    let last: serde_json::Value = http
        .get(format!(
            "{base}api/items?queue=jobs&state=waiting&start=20&count=10"
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(last["items"].as_array().unwrap().len(), 6);
    assert_eq!(last["next_start"], serde_json::Value::Null);
    let too_many = http
        .get(format!(
            "{base}api/items?queue=jobs&state=waiting&count=1001"
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(too_many.status(), StatusCode::BAD_REQUEST);
    assert!(too_many.text().await.unwrap().contains("count"));

    let count: serde_json::Value = http
        .get(format!("{base}api/count?queue=jobs&state=waiting"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(count["count"], 26);

    let job = http
        .get(format!("{base}api/item?queue=jobs&id=evil"))
        .send()
        .await
        .unwrap();
    assert_eq!(job.headers()["content-type"], "application/json");
    let job: serde_json::Value = job.json().await.unwrap();
    assert_eq!(job["data_preview"], "<script>alert(1)</script>\\xff\\xfe");
    let missing = http
        .get(format!("{base}api/item?queue=jobs&id=nope"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);

    let page = http.get(base.as_str()).send().await.unwrap();
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(csp.contains("script-src 'self'"), "{csp}");
    let openapi = http
        .get(format!("{base}api/openapi.yaml"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(openapi.contains("/api/requeue"));
}

#[tokio::test]
async fn actions_need_the_csrf_header_and_the_same_origin() {
    let (_server, q, served) = setup().await;
    common::dead(&q, "d", b"x", "boom", "Boom").await;
    let http = reqwest::Client::new();
    let base = &served.base;
    let body = serde_json::json!({"queue": "jobs", "ids": ["d"]});
    let no_token = http
        .post(format!("{base}api/requeue"))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(no_token.status(), StatusCode::FORBIDDEN);
    let token = csrf(&http, base).await;
    let wrong = http
        .post(format!("{base}api/requeue"))
        .header("x-leaseq-csrf", "0".repeat(32))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), StatusCode::FORBIDDEN);
    let foreign = http
        .post(format!("{base}api/requeue"))
        .header("x-leaseq-csrf", &token)
        .header("origin", "http://evil.example")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), StatusCode::FORBIDDEN);
    // Nothing changed.
    assert_eq!(q.get("d").await.unwrap().unwrap().state, State::Dead);

    let ok = http
        .post(format!("{base}api/requeue"))
        .header("x-leaseq-csrf", &token)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), StatusCode::OK);
    assert_eq!(ok.json::<serde_json::Value>().await.unwrap()["requeued"], 1);
    assert_eq!(q.get("d").await.unwrap().unwrap().state, State::Waiting);

    let cancel = http
        .post(format!("{base}api/cancel"))
        .header("x-leaseq-csrf", &token)
        .json(&serde_json::json!({"queue": "jobs", "id": "d"}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        cancel.json::<serde_json::Value>().await.unwrap()["was"],
        "waiting"
    );
    common::dead(&q, "e", b"x", "boom", "Boom").await;
    let purge = http
        .post(format!("{base}api/purge"))
        .header("x-leaseq-csrf", &token)
        .json(&serde_json::json!({"queue": "jobs", "all": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        purge.json::<serde_json::Value>().await.unwrap()["purged"],
        1
    );
    assert_eq!(q.count(State::Dead).await.unwrap(), 0);
    // A foreign Host (DNS rebinding) is refused on loopback.
    let rebound = http
        .get(format!("{base}api/queues"))
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(rebound.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn a_token_is_required_off_loopback_and_when_given() {
    let server = RedisServer::start();
    let urls = vec![server.url()];
    let refused = run(&urls, &["dashboard", "--listen", "0.0.0.0:0"]);
    assert_eq!(code(&refused), 2);
    assert!(stderr(&refused).contains("--token"), "{}", stderr(&refused));
    let short = run(
        &urls,
        &["dashboard", "--listen", "0.0.0.0:0", "--token", "abc"],
    );
    assert_eq!(code(&short), 2);

    let token = "a-long-enough-secret-123";
    let served = Served::start(&urls, "dashboard", &["--token", token]);
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let base = &served.base;
    let anonymous = http.get(format!("{base}api/queues")).send().await.unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    let metrics = http.get(format!("{base}metrics")).send().await.unwrap();
    assert_eq!(metrics.status(), StatusCode::UNAUTHORIZED);
    let bearer = http
        .get(format!("{base}api/queues"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    assert_eq!(bearer.status(), StatusCode::OK);
    let login = http
        .get(format!("{base}?token={token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(login.status(), StatusCode::SEE_OTHER);
    let cookie = login.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let with_cookie = http
        .get(format!("{base}api/queues"))
        .header("cookie", cookie.split(';').next().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(with_cookie.status(), StatusCode::OK);
    let status = served.terminate();
    assert!(status.success(), "{status:?}");
}

#[tokio::test]
async fn metrics_alone_follow_the_queue() {
    let server = RedisServer::start();
    let q = Client::connect(&server.url())
        .await
        .unwrap()
        .queue("jobs")
        .unwrap();
    // "jobs" counts; "quiet" does not (the default).
    q.set_config(&QueueConfig::new().stats(true)).await.unwrap();
    q.add(&Item::new(b"x".to_vec())).await.unwrap();
    common::dead(&q, "d", b"x", "boom", "Boom").await;
    // An item that waits for another (blocked), and a recurring job.
    q.add(&Item::with_id("x1", b"x".to_vec()).unwrap())
        .await
        .unwrap();
    q.add(
        &Item::with_id("w", b"x".to_vec())
            .unwrap()
            .depends_on(["x1"]),
    )
    .await
    .unwrap();
    let hourly = leaseq::Schedule::cron("0 * * * *");
    q.upsert_schedule("hourly", &hourly).await.unwrap();
    let quiet = q.client().queue("quiet").unwrap();
    common::dead(&quiet, "d", b"x", "boom", "Boom").await;
    let served = Served::start(&[server.url()], "metrics", &[]);
    let http = reqwest::Client::new();
    let text = http
        .get(format!("{}metrics", served.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        text.contains("leaseq_jobs{queue=\"jobs\",state=\"waiting\"} 2"),
        "{text}"
    );
    assert!(
        text.contains("leaseq_jobs{queue=\"jobs\",state=\"dead\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("leaseq_jobs{queue=\"jobs\",state=\"blocked\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("leaseq_schedules{queue=\"jobs\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("leaseq_schedules{queue=\"quiet\"} 0"),
        "{text}"
    );
    assert!(
        text.contains("leaseq_dead_total{queue=\"jobs\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("leaseq_failed_total{queue=\"jobs\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("leaseq_counters_enabled{queue=\"jobs\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("leaseq_jobs{queue=\"quiet\",state=\"dead\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("leaseq_counters_enabled{queue=\"quiet\"} 0"),
        "{text}"
    );
    assert!(!text.contains("_total{queue=\"quiet\"}"), "{text}");
    // Neither queue is paused or bounded: 0, and no capacity at all.
    assert!(text.contains("leaseq_paused{queue=\"quiet\"} 0"), "{text}");
    assert!(!text.contains("leaseq_capacity{"), "{text}");
    // The metrics server has no API.
    let api = http
        .get(format!("{}api/queues", served.base))
        .send()
        .await
        .unwrap();
    assert_eq!(api.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn metrics_count_the_last_hour_by_item_name() {
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).await.unwrap();
    let q = client.queue("named").unwrap();
    q.set_config(&QueueConfig::new().stats(true)).await.unwrap();
    for (id, name) in [
        ("a", "send_email"),
        ("b", "send_email"),
        ("c", "resize\"quoted\""),
    ] {
        q.add(
            &Item::with_id(id, b"x".to_vec())
                .unwrap()
                .name(name)
                .max_attempts(1),
        )
        .await
        .unwrap();
    }
    while let Some(lease) = q
        .lease(Duration::from_secs(30), leaseq::Wait::No)
        .await
        .unwrap()
    {
        if lease.id() == "c" {
            q.fail(&lease, "too big", "TooBig", leaseq::Retry::Default)
                .await
                .unwrap();
        } else {
            q.complete(&lease).await.unwrap();
        }
    }
    // A queue whose counters are off has no series by name.
    let quiet = client.queue(r#"qu"i\et"#).unwrap();
    quiet
        .add(
            &Item::with_id("q", b"x".to_vec())
                .unwrap()
                .name("send_email"),
        )
        .await
        .unwrap();
    let served = Served::start(&[server.url()], "metrics", &[]);
    let text = reqwest::get(format!("{}metrics", served.base))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let by = |labels: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("leaseq_jobs_by_name_last_hour{{{labels}}} ")))
            .map(|v| v.parse::<f64>().unwrap())
    };
    assert_eq!(
        by(r#"queue="named",name="send_email",outcome="completed""#),
        Some(2.0),
        "{text}"
    );
    assert_eq!(
        by(r#"queue="named",name="send_email",outcome="dead""#),
        Some(0.0),
        "{text}"
    );
    // The label value is escaped as the text format requires.
    assert_eq!(
        by(r#"queue="named",name="resize\"quoted\"",outcome="dead""#),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        by(r#"queue="named",name="resize\"quoted\"",outcome="failed""#),
        Some(1.0),
        "{text}"
    );
    assert!(
        !text.contains(r#"leaseq_jobs_by_name_last_hour{queue="quiet""#),
        "{text}"
    );
}

#[tokio::test]
async fn workers_lists_the_registered_runners_with_their_text_escaped() {
    let (_server, q, served) = setup().await;
    // A runner description as another implementation might write it, with markup in it.
    let info = br#"{"language":"<b>go</b>","concurrency":2,"running":["a"],"completed":5}"#;
    let ttl = std::time::Duration::from_secs(30);
    assert!(q.runner_beat("r1", info, ttl, true, ttl).await.unwrap());
    let http = reqwest::Client::new();
    let v: serde_json::Value = http
        .get(format!("{}api/workers?queue=jobs", served.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["housekeeper"], "r1");
    assert_eq!(v["workers"][0]["id"], "r1");
    assert_eq!(
        v["workers"][0]["info"]["language"], "<b>go</b>",
        "JSON carries text as given"
    );
    q.runner_leave("r1").await.unwrap();
    let v: serde_json::Value = http
        .get(format!("{}api/workers?queue=jobs", served.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["workers"], serde_json::json!([]));
    assert!(v["housekeeper"].is_null());
}

#[tokio::test]
async fn the_counters_switch_is_an_action_and_stats_say_when_they_are_off() {
    let (_server, q, served) = setup().await;
    q.add(&Item::with_id("a", b"x".to_vec()).unwrap())
        .await
        .unwrap();
    let http = reqwest::Client::new();
    let base = &served.base;
    let get = |path: String| {
        let http = http.clone();
        async move {
            let r = http.get(path).send().await.unwrap();
            assert_eq!(r.status(), StatusCode::OK);
            r.json::<serde_json::Value>().await.unwrap()
        }
    };
    let stats_url = format!("{base}api/stats?queue=jobs");
    let off = get(stats_url.clone()).await;
    assert_eq!(off["waiting"], 1);
    assert_eq!(off["counters"], false);
    for field in ["last_minute", "last_hour", "minutes"] {
        assert!(off[field].is_null(), "{field}: {off}");
    }
    let queues = get(format!("{base}api/queues")).await;
    assert_eq!(queues[0]["counters"], false);

    // Like every action: the CSRF header and the same origin, or nothing changes.
    let on = serde_json::json!({"queue": "jobs", "stats": true});
    let token = guarded(&http, base, "api/config", &on).await;
    assert_eq!(q.config().await.unwrap(), QueueConfig::new());
    // A setting the switch does not own is refused, not ignored.
    let other = http
        .post(format!("{base}api/config"))
        .header("x-leaseq-csrf", &token)
        .json(&serde_json::json!({"queue": "jobs", "stats": true, "max_attempts": 3}))
        .send()
        .await
        .unwrap();
    assert!(other.status().is_client_error(), "{}", other.status());
    assert_eq!(q.config().await.unwrap(), QueueConfig::new());

    let set = |stats: bool| {
        let (http, token) = (http.clone(), token.clone());
        async move {
            let r = http
                .post(format!("{base}api/config"))
                .header("x-leaseq-csrf", token)
                .json(&serde_json::json!({"queue": "jobs", "stats": stats}))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), StatusCode::OK);
            r.json::<serde_json::Value>().await.unwrap()
        }
    };
    let answer = set(true).await;
    assert_eq!(answer["queue"], "jobs");
    assert_eq!(answer["stored"]["stats"], true);
    assert_eq!(answer["effective"]["stats"], true);
    assert_eq!(q.config().await.unwrap().stats, Some(true));
    // Now the queue counts, and its stats carry the counters.
    let lease = q
        .lease(std::time::Duration::from_secs(30), leaseq::Wait::No)
        .await
        .unwrap()
        .unwrap();
    assert!(q.complete(&lease).await.unwrap());
    let counting = get(stats_url.clone()).await;
    assert_eq!(counting["counters"], true);
    assert_eq!(counting["last_hour"]["completed"], 1);
    assert_eq!(counting["minutes"].as_array().unwrap().len(), 60);

    let answer = set(false).await;
    assert_eq!(answer["effective"]["stats"], false);
    assert_eq!(get(stats_url).await["counters"], false);
    let config = get(format!("{base}api/config?queue=jobs")).await;
    assert_eq!(config["stored"]["stats"], false);
    assert_eq!(config["defaults"]["max_attempts"], 25);

    let openapi = http
        .get(format!("{base}api/openapi.yaml"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(openapi.contains("/api/config:"), "{openapi}");
}

#[tokio::test]
async fn pause_and_resume_are_actions_that_stats_and_metrics_show() {
    let (_server, q, served) = setup().await;
    q.add(&Item::with_id("a", b"x".to_vec()).unwrap())
        .await
        .unwrap();
    q.set_config(&QueueConfig::new().capacity(1000))
        .await
        .unwrap();
    let http = reqwest::Client::new();
    let base = &served.base;
    let get = |path: String| {
        let http = http.clone();
        async move {
            let r = http.get(path).send().await.unwrap();
            assert_eq!(r.status(), StatusCode::OK);
            r.text().await.unwrap()
        }
    };
    let stats = || async {
        serde_json::from_str::<serde_json::Value>(&get(format!("{base}api/stats?queue=jobs")).await)
            .unwrap()
    };
    let running = stats().await;
    assert_eq!(running["paused"], false);
    assert_eq!(running["capacity"], 1000);
    let metrics = get(format!("{base}metrics")).await;
    assert!(
        metrics.contains("leaseq_paused{queue=\"jobs\"} 0"),
        "{metrics}"
    );
    assert!(
        metrics.contains("leaseq_capacity{queue=\"jobs\"} 1000"),
        "{metrics}"
    );

    // Like every action: the CSRF header and the same origin, or nothing changes.
    let body = serde_json::json!({"queue": "jobs"});
    let token = guarded(&http, base, "api/pause", &body).await;
    // A field this action does not take is refused, not ignored.
    let other = http
        .post(format!("{base}api/pause"))
        .header("x-leaseq-csrf", &token)
        .json(&serde_json::json!({"queue": "jobs", "all": true}))
        .send()
        .await
        .unwrap();
    assert!(other.status().is_client_error(), "{}", other.status());
    assert!(!q.is_paused().await.unwrap());

    let act = |path: &'static str| {
        let (http, token) = (http.clone(), token.clone());
        async move {
            let r = http
                .post(format!("{base}api/{path}"))
                .header("x-leaseq-csrf", token)
                .json(&serde_json::json!({"queue": "jobs"}))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), StatusCode::OK);
            r.json::<serde_json::Value>().await.unwrap()
        }
    };
    assert_eq!(
        act("pause").await,
        serde_json::json!({"queue": "jobs", "paused": true, "changed": true})
    );
    assert!(q.is_paused().await.unwrap());
    assert_eq!(act("pause").await["changed"], false);
    assert_eq!(stats().await["paused"], true);
    let queues: serde_json::Value =
        serde_json::from_str(&get(format!("{base}api/queues")).await).unwrap();
    assert_eq!(queues[0]["queue"], "jobs", "a paused queue is still listed");
    assert_eq!(queues[0]["paused"], true);
    let metrics = get(format!("{base}metrics")).await;
    assert!(
        metrics.contains("leaseq_paused{queue=\"jobs\"} 1"),
        "{metrics}"
    );
    assert!(metrics.contains("# TYPE leaseq_paused gauge"), "{metrics}");
    assert!(metrics.contains("# HELP leaseq_capacity "), "{metrics}");

    assert_eq!(
        act("resume").await,
        serde_json::json!({"queue": "jobs", "paused": false, "changed": true})
    );
    assert!(!q.is_paused().await.unwrap());
    assert_eq!(act("resume").await["changed"], false);
    assert_eq!(stats().await["paused"], false);
    let config: serde_json::Value =
        serde_json::from_str(&get(format!("{base}api/config?queue=jobs")).await).unwrap();
    assert_eq!(config["stored"]["capacity"], 1000);
    assert!(config["defaults"]["capacity"].is_null());

    let openapi = get(format!("{base}api/openapi.yaml")).await;
    assert!(
        openapi.contains("/api/pause:") && openapi.contains("/api/resume:"),
        "{openapi}"
    );
}

#[tokio::test]
async fn the_rate_limit_and_a_hold_show_in_stats_config_and_metrics() {
    let (_server, q, served) = setup().await;
    let http = reqwest::Client::new();
    let base = &served.base;
    let get = |path: String| {
        let http = http.clone();
        async move {
            let r = http.get(path).send().await.unwrap();
            assert_eq!(r.status(), StatusCode::OK);
            r.text().await.unwrap()
        }
    };
    let stats = || async {
        serde_json::from_str::<serde_json::Value>(&get(format!("{base}api/stats?queue=jobs")).await)
            .unwrap()
    };
    q.add(&Item::with_id("a", b"x".to_vec()).unwrap())
        .await
        .unwrap();

    // Neither a limit nor a hold: nulls, and only the held-off gauge, at 0.
    let free = stats().await;
    assert!(free["rate_limit"].is_null(), "{free}");
    assert!(free["rate_limited_for_ms"].is_null(), "{free}");
    let metrics = get(format!("{base}metrics")).await;
    assert!(
        metrics.contains("leaseq_rate_limited_seconds{queue=\"jobs\"} 0"),
        "{metrics}"
    );
    assert!(!metrics.contains("leaseq_rate_limit_max{"), "{metrics}");
    assert!(
        !metrics.contains("leaseq_rate_limit_window_seconds{"),
        "{metrics}"
    );

    // Two leases per 90 s; a hold of an hour, as a runner told "rate limited" sets.
    q.set_config(
        &QueueConfig::new().rate_limit(leaseq::RateLimit::new(2, Duration::from_secs(90))),
    )
    .await
    .unwrap();
    q.rate_limit(Duration::from_secs(3600)).await.unwrap();
    let limit = serde_json::json!({"max": 2, "per_ms": 90_000});
    let held = stats().await;
    assert_eq!(held["rate_limit"], limit, "{held}");
    let left = held["rate_limited_for_ms"].as_u64().expect("held off");
    assert!(left > 0 && left <= 3_600_000, "{held}");
    let queues: serde_json::Value =
        serde_json::from_str(&get(format!("{base}api/queues")).await).unwrap();
    assert_eq!(queues[0]["rate_limit"], limit, "{queues}");
    assert!(queues[0]["rate_limited_for_ms"].is_u64(), "{queues}");
    let config: serde_json::Value =
        serde_json::from_str(&get(format!("{base}api/config?queue=jobs")).await).unwrap();
    assert_eq!(config["stored"]["rate_limit"], limit, "{config}");
    assert_eq!(config["effective"]["rate_limit"], limit, "{config}");
    assert!(config["defaults"]["rate_limit"].is_null(), "{config}");

    let metrics = get(format!("{base}metrics")).await;
    let value = |series: &str| -> f64 {
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(series)?.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {series}: {metrics}"))
    };
    let limited = value("leaseq_rate_limited_seconds{queue=\"jobs\"}");
    assert!(limited > 0.0 && limited <= 3600.0, "{metrics}");
    assert_eq!(value("leaseq_rate_limit_max{queue=\"jobs\"}"), 2.0);
    assert_eq!(
        value("leaseq_rate_limit_window_seconds{queue=\"jobs\"}"),
        90.0
    );
    for name in [
        "leaseq_rate_limited_seconds",
        "leaseq_rate_limit_max",
        "leaseq_rate_limit_window_seconds",
    ] {
        assert!(
            metrics.contains(&format!("# TYPE {name} gauge")),
            "{name}: {metrics}"
        );
        assert!(
            metrics.contains(&format!("# HELP {name} ")),
            "{name}: {metrics}"
        );
    }

    let openapi = get(format!("{base}api/openapi.yaml")).await;
    assert!(
        openapi.contains("rate_limited_for_ms:") && openapi.contains("RateLimit:"),
        "{openapi}"
    );
}

#[tokio::test]
async fn a_group_is_looked_up_by_name_and_paused_by_actions_but_has_no_metrics() {
    let (_server, q, served) = setup().await;
    for id in ["a1", "a2"] {
        q.add(&Item::with_id(id, b"x".to_vec()).unwrap().group("acme"))
            .await
            .unwrap();
    }
    let http = reqwest::Client::new();
    let base = &served.base;
    let get = |path: String| {
        let http = http.clone();
        async move {
            let r = http.get(path).send().await.unwrap();
            let status = r.status();
            (status, r.json::<serde_json::Value>().await.unwrap())
        }
    };
    let group = || async {
        let (status, v) = get(format!("{base}api/group?queue=jobs&group=acme")).await;
        assert_eq!(status, StatusCode::OK, "{v}");
        v
    };
    assert_eq!(
        group().await,
        serde_json::json!({"queue": "jobs", "group": "acme", "partition": null, "waiting": 2, "leased": 0,
                           "limit": 1, "paused": false, "rate_limited_for_ms": null})
    );
    // A group nobody used reads as empty; a bad name is refused, naming `group`.
    let (status, other) = get(format!("{base}api/group?queue=jobs&group=nobody")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (other["waiting"].clone(), other["limit"].clone()),
        (0.into(), 1.into())
    );
    let (status, bad) = get(format!("{base}api/group?queue=jobs&group=")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    assert!(bad["error"].as_str().unwrap().contains("`group`"), "{bad}");
    // The item shows its group; the queue's stats count grouped items as waiting.
    let (_, item) = get(format!("{base}api/item?queue=jobs&id=a1")).await;
    assert_eq!(item["group"], "acme", "{item}");
    let (_, stats) = get(format!("{base}api/stats?queue=jobs")).await;
    assert_eq!(stats["waiting"], 2, "{stats}");

    // Like every action: the CSRF header and the same origin, or nothing changes.
    let body = serde_json::json!({"queue": "jobs", "group": "acme"});
    let token = guarded(&http, base, "api/group/pause", &body).await;
    for wrong in [
        serde_json::json!({"queue": "jobs", "group": "acme", "limit": 3}),
        serde_json::json!({"queue": "jobs"}),
    ] {
        let r = http
            .post(format!("{base}api/group/pause"))
            .header("x-leaseq-csrf", &token)
            .json(&wrong)
            .send()
            .await
            .unwrap();
        assert!(r.status().is_client_error(), "{wrong}: {}", r.status());
    }
    assert!(!q.group("acme").await.unwrap().paused);

    let act = |path: &'static str, group: &'static str| {
        let (http, token) = (http.clone(), token.clone());
        async move {
            let r = http
                .post(format!("{base}api/{path}"))
                .header("x-leaseq-csrf", token)
                .json(&serde_json::json!({"queue": "jobs", "group": group}))
                .send()
                .await
                .unwrap();
            (r.status(), r.json::<serde_json::Value>().await.unwrap())
        }
    };
    let (status, bad) = act("group/pause", "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    let (status, paused) = act("group/pause", "acme").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        paused,
        serde_json::json!({"queue": "jobs", "group": "acme", "paused": true, "changed": true})
    );
    assert!(q.group("acme").await.unwrap().paused);
    assert_eq!(act("group/pause", "acme").await.1["changed"], false);
    assert_eq!(group().await["paused"], true);
    // The rest of the queue goes on; the group's items wait.
    q.add(&Item::with_id("p", b"x".to_vec()).unwrap())
        .await
        .unwrap();
    let lease = q
        .lease(Duration::from_secs(30), leaseq::Wait::No)
        .await
        .unwrap();
    assert_eq!(lease.as_ref().map(|l| l.id()), Some("p"));
    assert!(q
        .lease(Duration::from_secs(30), leaseq::Wait::No)
        .await
        .unwrap()
        .is_none());

    let (status, resumed) = act("group/resume", "acme").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        resumed,
        serde_json::json!({"queue": "jobs", "group": "acme", "paused": false, "changed": true})
    );
    assert_eq!(act("group/resume", "acme").await.1["changed"], false);
    let lease = q
        .lease(Duration::from_secs(30), leaseq::Wait::No)
        .await
        .unwrap();
    assert_eq!(lease.as_ref().map(|l| l.id()), Some("a1"));
    assert_eq!(group().await["leased"], 1);

    // /metrics has nothing per group (its names are unbounded), and no group label at all.
    let metrics = http
        .get(format!("{base}metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("leaseq_jobs{queue=\"jobs\",state=\"waiting\"} 1"),
        "{metrics}"
    );
    assert!(
        !metrics.contains("acme") && !metrics.contains("group"),
        "{metrics}"
    );

    let openapi = http
        .get(format!("{base}api/openapi.yaml"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for path in ["/api/group:", "/api/group/pause:", "/api/group/resume:"] {
        assert!(openapi.contains(path), "{path}");
    }
}

#[tokio::test]
async fn a_group_rate_limit_and_a_group_hold_show_in_group_and_config_but_not_in_metrics() {
    let (_server, q, served) = setup().await;
    let http = reqwest::Client::new();
    let base = &served.base;
    let get = |path: String| {
        let http = http.clone();
        async move {
            let r = http.get(path).send().await.unwrap();
            assert_eq!(r.status(), StatusCode::OK);
            r.text().await.unwrap()
        }
    };
    let json = |text: String| serde_json::from_str::<serde_json::Value>(&text).unwrap();
    let group = |name: &'static str| async move {
        json(get(format!("{base}api/group?queue=jobs&group={name}")).await)
    };
    for (id, g) in [("a1", "acme"), ("b1", "beta")] {
        q.add(&Item::with_id(id, b"x".to_vec()).unwrap().group(g))
            .await
            .unwrap();
    }

    // No limit and no hold: nulls.
    let config = json(get(format!("{base}api/config?queue=jobs")).await);
    assert!(config["stored"]["group_rate_limit"].is_null(), "{config}");
    assert!(
        config["effective"]["group_rate_limit"].is_null(),
        "{config}"
    );
    assert!(group("acme").await["rate_limited_for_ms"].is_null());

    // Each group once per 90 s; acme held off for an hour, as a runner told "rate limited" for
    // it sets. The queue itself is not held off, and beta is not.
    q.set_config(
        &QueueConfig::new().group_rate_limit(leaseq::RateLimit::new(1, Duration::from_secs(90))),
    )
    .await
    .unwrap();
    q.rate_limit_group("acme", Duration::from_secs(3600))
        .await
        .unwrap();
    let limit = serde_json::json!({"max": 1, "per_ms": 90_000});
    let config = json(get(format!("{base}api/config?queue=jobs")).await);
    assert_eq!(config["stored"]["group_rate_limit"], limit, "{config}");
    assert_eq!(config["effective"]["group_rate_limit"], limit, "{config}");
    assert!(config["defaults"]["group_rate_limit"].is_null(), "{config}");
    assert!(config["stored"]["rate_limit"].is_null(), "{config}");
    let acme = group("acme").await;
    let left = acme["rate_limited_for_ms"].as_u64().expect("held off");
    assert!(left > 0 && left <= 3_600_000, "{acme}");
    assert!(group("beta").await["rate_limited_for_ms"].is_null());
    let stats = json(get(format!("{base}api/stats?queue=jobs")).await);
    assert!(stats["rate_limited_for_ms"].is_null(), "{stats}");

    // /metrics stays per queue: no group, held or not, appears in it.
    let metrics = get(format!("{base}metrics")).await;
    assert!(
        !metrics.contains("acme") && !metrics.contains("group"),
        "{metrics}"
    );
    let openapi = get(format!("{base}api/openapi.yaml")).await;
    assert!(openapi.contains("group_rate_limit:"), "{openapi}");
}

#[tokio::test]
async fn a_job_shows_its_last_failures_trace() {
    let (_server, q, served) = setup().await;
    q.add(&Item::with_id("t", b"x".to_vec()).unwrap().max_attempts(1))
        .await
        .unwrap();
    let lease = q
        .lease(std::time::Duration::from_secs(30), leaseq::Wait::No)
        .await
        .unwrap()
        .unwrap();
    let trace = "Traceback (most recent call last):\n  File \"job.py\", line 3\n<b>ValueError</b>";
    q.fail_with_trace(
        &lease,
        "boom",
        "ValueError",
        leaseq::Retry::Never,
        Some(trace),
    )
    .await
    .unwrap();
    let job: serde_json::Value = reqwest::get(format!("{}api/item?queue=jobs&id=t", served.base))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    // Text with its newlines, for the page to set as text (never markup).
    assert_eq!(job["trace"], trace, "{job}");
    q.add(&Item::with_id("u", b"x".to_vec()).unwrap())
        .await
        .unwrap();
    let job: serde_json::Value = reqwest::get(format!("{}api/item?queue=jobs&id=u", served.base))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(job["trace"].is_null(), "{job}");
}

/// Every answer of the API is JSON: a missing or malformed parameter, a bad body, an unknown
/// path and a wrong method included.
#[tokio::test]
async fn every_error_is_json() {
    let (_server, _q, served) = setup().await;
    let http = reqwest::Client::new();
    let base = &served.base;
    for (path, status) in [
        ("api/items", StatusCode::BAD_REQUEST),
        ("api/stats", StatusCode::BAD_REQUEST),
        (
            "api/items?queue=jobs&state=dead&start=x",
            StatusCode::BAD_REQUEST,
        ),
        ("api/items?queue=jobs&state=bogus", StatusCode::BAD_REQUEST),
        ("api/nosuch", StatusCode::NOT_FOUND),
        ("api/requeue", StatusCode::METHOD_NOT_ALLOWED),
    ] {
        let r = http.get(format!("{base}{path}")).send().await.unwrap();
        assert_eq!(r.status(), status, "{path}");
        let v: serde_json::Value = r.json().await.expect(path);
        assert!(
            v["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{path}: {v}"
        );
    }
    // A missing parameter is named as one, a read's error says nothing of writes.
    let v: serde_json::Value = http
        .get(format!("{base}api/stats"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        v["error"], "missing parameter `queue` (e.g. ?queue=...)",
        "{v}"
    );
    let v: serde_json::Value = http
        .get(format!("{base}api/item?queue=jobs&id="))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let error = v["error"].as_str().unwrap();
    assert!(
        error.contains("id") && !error.contains("nothing was written"),
        "{v}"
    );
    let token = csrf(&http, base).await;
    let r = http
        .post(format!("{base}api/promote"))
        .header("x-leaseq-csrf", &token)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(r.json::<serde_json::Value>().await.unwrap()["error"].is_string());
}

/// The lists a job browser pages through: every state with its total, done items while their
/// result is kept, a filter by error type that says how far it looked, and promote.
#[tokio::test]
async fn states_are_paged_with_totals_filtered_and_delayed_items_promoted() {
    let (_server, q, served) = setup().await;
    let http = reqwest::Client::new();
    let base = &served.base;
    for i in 0..72 {
        q.add(&Item::with_id(format!("w{i:02}"), b"x".to_vec()).unwrap())
            .await
            .unwrap();
    }
    let get = |path: String| {
        let http = http.clone();
        async move {
            let r = http.get(path).send().await.unwrap();
            assert!(r.status().is_success());
            r.json::<serde_json::Value>().await.unwrap()
        }
    };
    let page = get(format!("{base}api/items?queue=jobs&state=waiting&count=50")).await;
    assert_eq!(page["items"].as_array().unwrap().len(), 50);
    assert_eq!(
        (page["total"].as_u64(), page["next_start"].as_u64()),
        (Some(72), Some(50))
    );
    let page = get(format!(
        "{base}api/items?queue=jobs&state=waiting&count=50&start=50"
    ))
    .await;
    assert_eq!(page["items"].as_array().unwrap().len(), 22);
    assert!(page["next_start"].is_null());
    // Done: an item completed with its result kept.
    let lease = q
        .lease(Duration::from_secs(30), leaseq::Wait::No)
        .await
        .unwrap()
        .unwrap();
    q.complete_with_result(&lease, Some(b"ok"), None)
        .await
        .unwrap();
    let done = get(format!("{base}api/items?queue=jobs&state=done")).await;
    assert_eq!(done["items"][0]["id"], "w00");
    assert_eq!(done["total"], 1);
    // A filter: the matches, and how far it looked.
    common::dead(&q, "d1", b"x", "timed out", "Timeout").await;
    common::dead(&q, "d2", b"x", "<b>bad</b>", "ValueError").await;
    let found = get(format!(
        "{base}api/items?queue=jobs&state=dead&error_type=ValueError"
    ))
    .await;
    assert_eq!(found["items"].as_array().unwrap().len(), 1);
    assert_eq!(found["items"][0]["id"], "d2");
    assert_eq!(found["items"][0]["error"], "<b>bad</b>");
    assert_eq!(
        (found["examined"].as_u64(), found["total"].as_u64()),
        (Some(2), Some(2))
    );
    assert!(found["next_start"].is_null());
    // Promote: an action like every other, a delayed item waits now; one not delayed is a 404.
    q.add(
        &Item::with_id("later", b"x".to_vec())
            .unwrap()
            .delay(Duration::from_secs(3600)),
    )
    .await
    .unwrap();
    let body = serde_json::json!({"queue": "jobs", "id": "later"});
    let token = guarded(&http, base, "api/promote", &body).await;
    assert_eq!(q.get("later").await.unwrap().unwrap().state, State::Delayed);
    let post = |body: serde_json::Value| {
        http.post(format!("{base}api/promote"))
            .header("x-leaseq-csrf", &token)
            .json(&body)
            .send()
    };
    let r = post(body.clone()).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(q.get("later").await.unwrap().unwrap().state, State::Waiting);
    let r = post(body).await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert!(r.json::<serde_json::Value>().await.unwrap()["error"].is_string());
}

/// The dashboard starts while Redis is down, answers 503 with the reason, and serves the
/// queues once Redis is back.
#[tokio::test]
async fn the_dashboard_starts_while_redis_is_down_and_recovers() {
    // A URL that can never work still stops the command at once (exit 2, usage).
    let wrong = run(
        &["http://example.com".to_owned()],
        &["dashboard", "--listen", "127.0.0.1:0"],
    );
    assert_eq!(code(&wrong), 2, "{}", stderr(&wrong));
    assert!(stderr(&wrong).contains("--url"), "{}", stderr(&wrong));
    let mut server = RedisServer::start();
    server.kill();
    let served = Served::start(&[server.url()], "dashboard", &[]);
    let http = reqwest::Client::new();
    let r = http
        .get(format!("{}api/queues", served.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(r.json::<serde_json::Value>().await.unwrap()["error"].is_string());
    let metrics = http
        .get(format!("{}metrics", served.base))
        .send()
        .await
        .unwrap();
    assert_eq!(metrics.status(), StatusCode::SERVICE_UNAVAILABLE);
    server.restart();
    let q = Client::connect(&server.url())
        .await
        .unwrap()
        .queue("back")
        .unwrap();
    q.add(&Item::new(b"x".to_vec())).await.unwrap();
    let r = http
        .get(format!("{}api/queues", served.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(v[0]["queue"], "back");
    assert_eq!(v[0]["waiting"], 1);
}

#[tokio::test]
async fn schedules_are_listed_with_their_next_fire_times_as_text() {
    let (_server, q, served) = setup().await;
    let nightly = leaseq::Schedule::cron("0 3 * * *")
        .tz("Europe/Berlin")
        .missed(leaseq::Missed::Once);
    q.upsert_schedule("<b>nightly</b>", &nightly).await.unwrap();
    let http = reqwest::Client::new();
    let v: serde_json::Value = http
        .get(format!("{}api/schedules?queue=jobs", served.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["total"], 1, "{v}");
    let s = &v["schedules"][0];
    assert_eq!(s["name"], "<b>nightly</b>", "JSON carries text as given");
    assert_eq!(
        (s["cron"].as_str(), s["tz"].as_str()),
        (Some("0 3 * * *"), Some("Europe/Berlin"))
    );
    assert_eq!(s["missed"], "once");
    assert!(s["next_ms"].as_u64().unwrap() > v["now_ms"].as_u64().unwrap());
    let openapi = http
        .get(format!("{}api/openapi.yaml", served.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(openapi.contains("/api/schedules:"), "{openapi}");
}

/// A job's dependencies (spec 5.24): `/api/item` has what it was added to wait for,
/// `/api/dependencies` what it still waits for and what waits for it; blocked items are a state
/// of the browser's lists.
#[tokio::test]
async fn a_job_shows_what_it_waits_for_and_what_waits_for_it() {
    let (_server, q, served) = setup().await;
    q.add_flow(
        &Item::with_id("<b>parent</b>", b"p".to_vec()).unwrap(),
        &[Item::with_id("kid", b"k".to_vec()).unwrap().into()],
    )
    .await
    .unwrap();
    let base = served.base.clone();
    let get = |path: String| {
        let url = format!("{base}{path}");
        async move {
            reqwest::get(url)
                .await
                .unwrap()
                .json::<serde_json::Value>()
                .await
                .unwrap()
        }
    };
    let job = get("api/item?queue=jobs&id=%3Cb%3Eparent%3C%2Fb%3E".into()).await;
    assert_eq!(job["state"], "blocked", "{job}");
    assert_eq!(job["depends_on"], serde_json::json!(["kid"]), "{job}");
    assert_eq!(job["on_dependency_failure"], "fail", "{job}");
    let deps = get("api/dependencies?queue=jobs&id=kid".into()).await;
    assert_eq!(
        deps["dependants"],
        serde_json::json!(["<b>parent</b>"]),
        "{deps}"
    );
    assert_eq!(deps["dependants_count"], 1, "{deps}");
    let deps = get("api/dependencies?queue=jobs&id=%3Cb%3Eparent%3C%2Fb%3E".into()).await;
    assert_eq!(deps["pending"], serde_json::json!(["kid"]), "{deps}");
    let blocked = get("api/items?queue=jobs&state=blocked".into()).await;
    assert!(blocked.to_string().contains("<b>parent</b>"), "{blocked}");
}

/// On a partitioned queue's base (spec 5.25) the actions and reads reach its partitions, never
/// the base as a queue of its own: nothing is written under the base but its layout.
#[tokio::test]
async fn a_partitioned_queue_is_acted_on_through_its_partitions() {
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).await.unwrap();
    let p = client.create_partitioned("{parts}", 3).await.unwrap();
    let items: Vec<Item> = (0..9)
        .map(|i| Item::with_id(format!("i{i}"), b"x".to_vec()).unwrap())
        .collect();
    assert_eq!(p.add_batch(&items).await.unwrap(), 9);
    let served = Served::start(&[server.url()], "dashboard", &[]);
    let http = reqwest::Client::new();
    let base = &served.base;
    let token = csrf(&http, base).await;
    let post = |path: &str, body: serde_json::Value| {
        http.post(format!("{base}{path}"))
            .header("x-leaseq-csrf", &token)
            .json(&body)
            .send()
    };
    let get = |path: &str| http.get(format!("{base}{path}")).send();
    let q = "%7Bparts%7D";

    let page: serde_json::Value = get(&format!("api/items?queue={q}&state=waiting&count=100"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(page["total"], 9, "{page}");
    assert_eq!(page["items"].as_array().unwrap().len(), 9);
    let item: serde_json::Value = get(&format!("api/item?queue={q}&id=i4"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(item["state"], "waiting", "{item}");
    let workers = get(&format!("api/workers?queue={q}")).await.unwrap();
    assert_eq!(workers.status(), StatusCode::OK);

    let paused = post("api/pause", serde_json::json!({"queue": "{parts}"}))
        .await
        .unwrap();
    assert_eq!(paused.status(), StatusCode::OK);
    for part in p.partitions() {
        assert!(part.is_paused().await.unwrap(), "{}", part.prefix());
    }
    let cancelled: serde_json::Value = post(
        "api/cancel",
        serde_json::json!({"queue": "{parts}", "id": "i7"}),
    )
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(cancelled["was"], "waiting", "{cancelled}");
    assert!(p.get("i7").await.unwrap().is_none());

    // A group's actions go to its partition, which holds all its items.
    let paused: serde_json::Value = post(
        "api/group/pause",
        serde_json::json!({"queue": "{parts}", "group": "acme"}),
    )
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(paused["changed"], true, "{paused}");
    let home = &p.partitions()[p
        .partition_of(&Item::new(Vec::new()).group("acme"))
        .unwrap()];
    assert!(home.group("acme").await.unwrap().paused);
    let shown: serde_json::Value = get(&format!("api/group?queue={q}&group=acme"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(shown["paused"], true, "{shown}");

    // Promote and dependencies find the item where it lives.
    let late = Item::with_id("late", b"x".to_vec())
        .unwrap()
        .group("acme")
        .delay(std::time::Duration::from_secs(3600));
    p.add(&late).await.unwrap();
    let promoted: serde_json::Value = post(
        "api/promote",
        serde_json::json!({"queue": "{parts}", "id": "late"}),
    )
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(promoted["promoted"], true, "{promoted}");
    assert_eq!(
        p.get("late").await.unwrap().unwrap().state,
        leaseq::State::Waiting
    );
    // A dependant whose own id routes elsewhere: found in its dependency's partition.
    let acme = p
        .partition_of(&Item::new(Vec::new()).group("acme"))
        .unwrap();
    let after = (0..)
        .map(|i| format!("after{i}"))
        .find(|id| p.partition_of_id(id) != acme)
        .unwrap();
    p.add(
        &Item::with_id(after.as_str(), b"x".to_vec())
            .unwrap()
            .depends_on(["late"]),
    )
    .await
    .unwrap();
    let deps: serde_json::Value = get(&format!("api/dependencies?queue={q}&id={after}"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(deps["pending"], serde_json::json!(["late"]), "{deps}");
    // The item's view names the partition that holds it, not its id's own.
    let item: serde_json::Value = get(&format!("api/item?queue={q}&id={after}"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(item["state"], "blocked", "{item}");
    assert_eq!(item["partition"], p.partitions()[acme].prefix(), "{item}");

    // A search by name looks in one partition per call, `next_start` going on to the next.
    for i in 0..6 {
        let named = Item::with_id(format!("n{i}"), b"x".to_vec())
            .unwrap()
            .name("mail");
        p.add(&named).await.unwrap();
    }
    let mut found = Vec::new();
    let mut start = Some(0);
    while let Some(at) = start {
        let page: serde_json::Value = get(&format!(
            "api/items?queue={q}&state=waiting&count=100&name=mail&start={at}"
        ))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
        let items = page["items"].as_array().expect("a page");
        found.extend(items.iter().map(|e| e["id"].as_str().unwrap().to_owned()));
        start = page["next_start"].as_u64();
    }
    found.sort();
    assert_eq!(found, ["n0", "n1", "n2", "n3", "n4", "n5"]);
    assert_eq!(
        server.command("KEYS {parts}:*").trim(),
        "*1",
        "only the layout under the base"
    );
}

/// `GET /api/events` on a partitioned queue's base: every partition's entries as server-sent
/// events, each with its `partition`, and the SSE id the follower's position (an id per
/// partition) that a reconnecting browser resumes after.
#[tokio::test]
async fn a_partitioned_queues_events_stream_every_partition() {
    let server = RedisServer::start();
    let client = Client::connect(&server.url()).await.unwrap();
    let p = client.create_partitioned("{live}", 3).await.unwrap();
    p.set_config(&QueueConfig::new().events(true))
        .await
        .unwrap();
    let items: Vec<Item> = (0..6)
        .map(|i| Item::with_id(format!("i{i}"), b"x".to_vec()).unwrap())
        .collect();
    assert_eq!(p.add_batch(&items).await.unwrap(), 6);
    let served = Served::start(&[server.url()], "dashboard", &[]);
    let http = reqwest::Client::new();
    let mut response = http
        .get(format!(
            "{}api/events?queue=%7Blive%7D&after=0-0",
            served.base
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    // Read the stream until six entries came (or it ends).
    let mut text = String::new();
    while text.matches("event: entry").count() < 6 {
        let chunk = tokio::time::timeout(Duration::from_secs(30), response.chunk())
            .await
            .expect("an entry within 30 s")
            .unwrap();
        match chunk {
            Some(bytes) => text.push_str(&String::from_utf8_lossy(&bytes)),
            None => break,
        }
    }
    let entries: Vec<serde_json::Value> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<serde_json::Value>(d).ok())
        .filter(|v| v.get("event").is_some())
        .collect();
    assert_eq!(entries.len(), 6, "{text}");
    let mut ids: Vec<&str> = Vec::new();
    for e in &entries {
        let id = e["job_id"].as_str().unwrap();
        assert_eq!(
            e["partition"].as_u64().unwrap() as usize,
            p.partition_of_id(id),
            "{e}"
        );
        ids.push(id);
    }
    ids.sort_unstable();
    assert_eq!(ids, ["i0", "i1", "i2", "i3", "i4", "i5"]);
    let last_id = text
        .lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .next_back()
        .unwrap();
    assert_eq!(last_id.split(',').count(), 3, "{text}");
}
