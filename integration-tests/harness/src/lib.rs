//! Throwaway Redis servers for tests: a `redis-server` on a free loopback port with no
//! persistence and its own temp dir, or a local 3-primary Redis Cluster, each stopped when
//! dropped. Tests in other languages use the `leaseq-test-redis` binary, which prints the URLs
//! as JSON and stops the servers when its stdin closes.

pub mod vectors;

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

const INSTALL_HINT: &str = "redis-server was not found on PATH. Install it with `make deps` \
    (or `sudo apt-get install -y redis-server redis-tools` on Debian/Ubuntu).";

/// One `redis-server` process, killed (and its temp dir removed) on drop.
pub struct RedisServer {
    port: u16,
    dir: PathBuf,
    child: Option<Guard>,
    extra_args: Vec<String>,
}

/// A redis-server run through a small shell guard that kills it when our end of the guard's
/// stdin closes: on drop, and also when the test process dies without dropping (a server kept
/// in a static, a SIGKILL), so no server outlives its test.
struct Guard {
    shell: Child,
    stdin: Option<ChildStdin>,
    pid: u32,
}

impl Guard {
    fn alive(&self) -> bool {
        fs::read_to_string(format!("/proc/{}/stat", self.pid))
            .is_ok_and(|s| s.split_whitespace().nth(2) != Some("Z"))
    }

    fn stop(mut self) {
        drop(self.stdin.take());
        let _ = self.shell.wait();
    }
}

impl RedisServer {
    /// Starts a server on a free loopback port. Panics with an install hint when redis-server
    /// is missing, and with the server's log when it does not come up.
    pub fn start() -> RedisServer {
        RedisServer::start_with(&[])
    }

    /// Like [`RedisServer::start`], with more `redis-server` arguments (e.g. `--maxmemory-policy`).
    pub fn start_with(extra_args: &[&str]) -> RedisServer {
        let dir = temp_dir("redis");
        let mut last_err = String::new();
        for _ in 0..10 {
            let port = free_port(false);
            let mut server = RedisServer {
                port,
                dir: dir.clone(),
                child: None,
                extra_args: extra_args.iter().map(|s| s.to_string()).collect(),
            };
            match server.spawn() {
                Ok(()) => return server,
                Err(e) => {
                    last_err = e;
                    server.kill();
                }
            }
        }
        panic!("could not start redis-server: {last_err}");
    }

    fn spawn(&mut self) -> Result<(), String> {
        let port = self.port.to_string();
        let mut args = vec![
            "--port",
            &port,
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--logfile",
            "redis.log",
        ];
        let dir = self.dir.to_string_lossy().into_owned();
        args.extend(["--dir", &dir]);
        args.extend(self.extra_args.iter().map(String::as_str));
        self.child = Some(spawn_redis(&args, &self.dir)?);
        wait_for_ping(self.port, &self.dir, self.child.as_ref().unwrap())
    }

    /// A server that also listens with TLS (a self-signed certificate made with `openssl`) on a
    /// second port, and on a unix socket; [`RedisServer::tls_url`] and
    /// [`RedisServer::unix_url`] name them.
    pub fn start_tls_and_unix() -> RedisServer {
        let certs = temp_dir("tls");
        self_signed(&certs, "/CN=localhost", "key.pem", "cert.pem");
        let tls_port = free_port(false).to_string();
        let cert = certs.join("cert.pem").to_string_lossy().into_owned();
        let key = certs.join("key.pem").to_string_lossy().into_owned();
        let socket = certs.join("redis.sock").to_string_lossy().into_owned();
        RedisServer::start_with(&[
            "--tls-port",
            &tls_port,
            "--tls-cert-file",
            &cert,
            "--tls-key-file",
            &key,
            "--tls-ca-cert-file",
            &cert,
            "--tls-auth-clients",
            "no",
            "--unixsocket",
            &socket,
            "--unixsocketperm",
            "700",
        ])
    }

    /// A server whose TLS port has a certificate signed by a test certificate authority (made
    /// with `openssl` here) and that asks clients for a certificate from that authority
    /// (`tls-auth-clients yes`). Returns the server and the directory holding `ca.pem`,
    /// `client.pem` and `client.key` (a client certificate the server accepts) and `other.pem`
    /// with `other.key` (one signed by another authority).
    pub fn start_tls_client_auth() -> (RedisServer, PathBuf) {
        let certs = test_certs();
        let tls_port = free_port(false).to_string();
        let path = |f: &str| certs.join(f).to_string_lossy().into_owned();
        let server = RedisServer::start_with(&[
            "--tls-port",
            &tls_port,
            "--tls-cert-file",
            &path("server.pem"),
            "--tls-key-file",
            &path("server.key"),
            "--tls-ca-cert-file",
            &path("ca.pem"),
            "--tls-auth-clients",
            "yes",
        ]);
        (server, certs)
    }

    fn arg_after(&self, flag: &str) -> Option<&str> {
        let at = self.extra_args.iter().position(|a| a == flag)?;
        self.extra_args.get(at + 1).map(String::as_str)
    }

    /// `rediss://127.0.0.1:<tls port>` for a server from [`RedisServer::start_tls_and_unix`].
    pub fn tls_url(&self) -> String {
        format!(
            "rediss://127.0.0.1:{}",
            self.arg_after("--tls-port").expect("a TLS server")
        )
    }

    /// `redis+unix://<socket>` for a server from [`RedisServer::start_tls_and_unix`].
    pub fn unix_url(&self) -> String {
        format!(
            "redis+unix://{}",
            self.arg_after("--unixsocket").expect("a unix socket")
        )
    }

    /// `redis://127.0.0.1:<port>`
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// The TCP port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's working directory (its log, `nodes.conf`, a dump), a temp dir of its own:
    /// removed when the server is dropped, or else when the process exits.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        fs::read_to_string(self.dir.join("redis.log")).unwrap_or_default()
    }

    /// Kills the server (no shutdown courtesy, like a crash) and leaves it down.
    pub fn kill(&mut self) {
        if let Some(guard) = self.child.take() {
            guard.stop();
        }
    }

    /// Kills the server and starts a new, empty one on the same port.
    pub fn restart(&mut self) {
        self.kill();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match self.spawn() {
                Ok(()) => return,
                Err(e) if Instant::now() > deadline => panic!("restart failed: {e}"),
                Err(_) => {
                    self.kill();
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        }
    }

    /// Restarts the server as an operator would, keeping its data: `SHUTDOWN SAVE` writes the
    /// dataset and exits, and a new server on the same port loads it. Clients see their
    /// connections drop and, for a moment, connection refused.
    pub fn restart_keeping_data(&mut self) {
        let _ = raw_command_opt(self.port, "SHUTDOWN SAVE");
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
            assert!(Instant::now() < deadline, "redis-server did not shut down");
            std::thread::sleep(Duration::from_millis(20));
        }
        self.restart();
    }

    /// Waits until this cluster node says `cluster_state:ok`; panics at `deadline`.
    pub fn wait_cluster_ok(&self, deadline: Instant) {
        while !self.command("CLUSTER INFO").contains("cluster_state:ok") {
            assert!(
                Instant::now() < deadline,
                "cluster never reached cluster_state:ok"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Sends one command (inline form) and returns the raw reply: for harness checks only.
    pub fn command(&self, line: &str) -> String {
        raw_command(self.port, line)
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
        if std::thread::panicking() {
            eprintln!(
                "---- redis-server log ({}) ----\n{}",
                self.dir.display(),
                self.log()
            );
        }
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// A test certificate authority and certificates made with `openssl` in a temp dir of their
/// own, left to the caller: `ca.pem`/`ca.key`, `server.pem`/`server.key` (for 127.0.0.1
/// and localhost), `client.pem`/`client.key` signed by `ca`, and `other.pem`/`other.key`
/// signed by `other-ca.pem`.
pub fn test_certs() -> PathBuf {
    let certs = temp_dir("tls-ca");
    let openssl = |args: &[&str]| openssl(&certs, args);
    // Version 3 leaf certificates (rustls refuses older ones), each for its use.
    fs::write(
        certs.join("server.ext"),
        "basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n\
             extendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    fs::write(
        certs.join("client.ext"),
        "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n",
    )
    .unwrap();
    for ca in ["ca", "other-ca"] {
        self_signed(
            &certs,
            &format!("/CN=leaseq test {ca}"),
            &format!("{ca}.key"),
            &format!("{ca}.pem"),
        );
    }
    for (name, ca, ext) in [
        ("server", "ca", "server.ext"),
        ("client", "ca", "client.ext"),
        ("other", "other-ca", "client.ext"),
    ] {
        openssl(&[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            &format!("/CN=leaseq {name}"),
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.csr"),
        ]);
        let args = vec![
            "x509".to_owned(),
            "-req".into(),
            "-in".into(),
            format!("{name}.csr"),
            "-CA".into(),
            format!("{ca}.pem"),
            "-CAkey".into(),
            format!("{ca}.key"),
            "-CAcreateserial".into(),
            "-days".into(),
            "1".into(),
            "-out".into(),
            format!("{name}.pem"),
            "-extfile".into(),
            ext.into(),
        ];
        openssl(&args.iter().map(String::as_str).collect::<Vec<_>>());
    }
    certs
}

/// A self-signed certificate for `subject` (valid one day) in `dir`: `key` and `cert`.
fn self_signed(dir: &Path, subject: &str, key: &str, cert: &str) {
    openssl(
        dir,
        &[
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", subject,
            "-keyout", key, "-out", cert,
        ],
    );
}

/// Runs `openssl` with `args` in `dir` (test certificates); panics with its stderr on failure.
fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("openssl (Debian package `openssl`) makes the test certificates");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A local Redis Cluster of three primaries, with or without replicas.
pub struct RedisCluster {
    nodes: Vec<RedisServer>,
}

impl RedisCluster {
    /// Starts three `--cluster-enabled` servers, joins them with `redis-cli --cluster create`
    /// and waits for `cluster_state:ok` on every node.
    pub fn start() -> RedisCluster {
        RedisCluster::start_with(0, 5000)
    }

    /// Starts three primaries with `replicas` replicas each and `cluster-node-timeout`
    /// `node_timeout_ms` (how long before a replica takes over from a primary that stopped
    /// answering), and waits for `cluster_state:ok` on every node.
    pub fn start_with(replicas: usize, node_timeout_ms: u32) -> RedisCluster {
        RedisCluster::start_nodes(replicas, node_timeout_ms, &[], false)
    }

    /// Three primaries that also listen with TLS (`tls-cluster`: the cluster bus too), their
    /// certificates from [`test_certs`] (returned), client certificates required:
    /// [`RedisCluster::tls_urls`] name them.
    pub fn start_tls() -> (RedisCluster, PathBuf) {
        let certs = test_certs();
        let path = |f: &str| certs.join(f).to_string_lossy().into_owned();
        let args = [
            "--tls-cert-file".to_owned(),
            path("server.pem"),
            "--tls-key-file".into(),
            path("server.key"),
            "--tls-ca-cert-file".into(),
            path("ca.pem"),
            "--tls-auth-clients".into(),
            "yes".into(),
            // What a node shows the others on the bus (the server certificate is for serving).
            "--tls-client-cert-file".into(),
            path("client.pem"),
            "--tls-client-key-file".into(),
            path("client.key"),
            "--tls-cluster".into(),
            "yes".into(),
        ];
        (RedisCluster::start_nodes(0, 5000, &args, true), certs)
    }

    /// `rediss://127.0.0.1:<tls port>` per node of [`RedisCluster::start_tls`].
    pub fn tls_urls(&self) -> Vec<String> {
        self.nodes.iter().map(RedisServer::tls_url).collect()
    }

    /// Starts the nodes with `extra` arguments; with `tls_port`, each node also listens with
    /// TLS on a free port of its own (`--tls-port`).
    fn start_nodes(
        replicas: usize,
        node_timeout_ms: u32,
        extra: &[String],
        tls_port: bool,
    ) -> RedisCluster {
        let mut nodes = Vec::new();
        for _ in 0..3 * (1 + replicas) {
            let dir = temp_dir("redis-cluster");
            let mut last_err = String::new();
            let mut started = None;
            for _ in 0..10 {
                let port = free_port(true);
                let mut server = RedisServer {
                    port,
                    dir: dir.clone(),
                    child: None,
                    extra_args: vec![
                        "--cluster-enabled".into(),
                        "yes".into(),
                        "--cluster-config-file".into(),
                        "nodes.conf".into(),
                        "--cluster-node-timeout".into(),
                        node_timeout_ms.to_string(),
                    ],
                };
                server.extra_args.extend(extra.iter().cloned());
                if tls_port {
                    server.extra_args.push("--tls-port".into());
                    server.extra_args.push(free_port(true).to_string());
                }
                match server.spawn() {
                    Ok(()) => {
                        started = Some(server);
                        break;
                    }
                    Err(e) => {
                        last_err = e;
                        server.kill();
                        let _ = fs::remove_file(dir.join("nodes.conf"));
                    }
                }
            }
            nodes.push(started.unwrap_or_else(|| panic!("cluster node failed: {last_err}")));
        }
        let addrs: Vec<String> = nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.port))
            .collect();
        // Bounded: redis-cli waits forever for nodes that cannot reach each other.
        let out = Command::new("timeout")
            .args(["60", "redis-cli"])
            .arg("--cluster")
            .arg("create")
            .args(&addrs)
            .args(["--cluster-replicas", &replicas.to_string(), "--cluster-yes"])
            .output()
            .unwrap_or_else(|e| panic!("redis-cli: {e}. {INSTALL_HINT}"));
        assert!(
            out.status.success(),
            "redis-cli --cluster create failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let deadline = Instant::now() + Duration::from_secs(30);
        for node in &nodes {
            node.wait_cluster_ok(deadline);
        }
        RedisCluster { nodes }
    }

    /// One URL per node.
    pub fn urls(&self) -> Vec<String> {
        self.nodes.iter().map(RedisServer::url).collect()
    }

    /// The nodes, for checks that look at one server.
    pub fn nodes(&self) -> &[RedisServer] {
        &self.nodes
    }

    /// The nodes, to kill or restart one (a restarted node keeps its `nodes.conf`, so it
    /// rejoins the cluster).
    pub fn nodes_mut(&mut self) -> &mut [RedisServer] {
        &mut self.nodes
    }
}

/// The server binary: `LEASEQ_TEST_SERVER` (a path, e.g. a `valkey-server`), else
/// `redis-server` from `PATH`.
pub fn server_binary() -> String {
    std::env::var("LEASEQ_TEST_SERVER")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "redis-server".into())
}

fn spawn_redis(args: &[&str], dir: &Path) -> Result<Guard, String> {
    let binary = server_binary();
    if Command::new(&binary).arg("--version").output().is_err() {
        if binary == "redis-server" {
            panic!("{INSTALL_HINT}");
        }
        panic!("LEASEQ_TEST_SERVER={binary} does not run");
    }
    let script = r#"server="$1"; shift; "$server" "$@" & pid=$!; echo $pid; read _ignored; kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null; exit 0"#;
    let mut shell = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg("sh")
        .arg(&binary)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("spawn sh: {e}"))?;
    let stdin = shell.stdin.take();
    let mut line = String::new();
    BufReader::new(shell.stdout.take().expect("piped stdout"))
        .read_line(&mut line)
        .map_err(|e| format!("read redis-server pid: {e}"))?;
    let pid = line
        .trim()
        .parse()
        .map_err(|_| format!("bad pid line {line:?}"))?;
    Ok(Guard { shell, stdin, pid })
}

/// Waits up to 10 s for PONG, and for as long as the server answers LOADING (a dataset of any
/// size loads; the server's own log tells when it stops making progress).
fn wait_for_ping(port: u16, dir: &Path, guard: &Guard) -> Result<(), String> {
    let mut deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match raw_command_opt(port, "PING") {
            Some(r) if r.starts_with("+PONG") => return Ok(()),
            Some(r) if r.starts_with("-LOADING") => {
                deadline = Instant::now() + Duration::from_secs(10)
            }
            _ => {}
        }
        if !guard.alive() {
            let log = fs::read_to_string(dir.join("redis.log")).unwrap_or_default();
            return Err(format!("redis-server exited:\n{log}"));
        }
        if Instant::now() > deadline {
            let log = fs::read_to_string(dir.join("redis.log")).unwrap_or_default();
            return Err(format!(
                "redis-server on port {port} did not answer PING:\n{log}"
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn raw_command(port: u16, line: &str) -> String {
    raw_command_opt(port, line).unwrap_or_else(|| panic!("no answer to `{line}` on port {port}"))
}

fn raw_command_opt(port: u16, line: &str) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    stream.write_all(format!("{line}\r\n").as_bytes()).ok()?;
    let mut reader = BufReader::new(stream);
    let mut first = String::new();
    reader.read_line(&mut first).ok()?;
    if let Some(len) = first.strip_prefix('$') {
        let len: i64 = len.trim().parse().ok()?;
        if len < 0 {
            return Some(first);
        }
        let mut body = vec![0u8; len as usize + 2];
        reader.read_exact(&mut body).ok()?;
        return Some(String::from_utf8_lossy(&body).into_owned());
    }
    Some(first)
}

/// A free loopback port; with `cluster`, its cluster bus port (+10000) is free too.
///
/// Below the kernel's ephemeral range when it leaves room (from 10000 up): a server's port is
/// free while a test has the server down (`kill`, `restart`), and a port of the ephemeral range
/// may then be taken as the local end of any outgoing connection, even by a client of that very
/// port connecting to itself (TCP's simultaneous open) while it retries, so the server could not
/// come back on it. Never 6379.
fn free_port(cluster: bool) -> u16 {
    let bus = if cluster { 10000 } else { 0 };
    let top = ephemeral_start().saturating_sub(bus);
    if top > 11000 {
        for _ in 0..1000 {
            let port = fastrand::u16(10000..top);
            if TcpListener::bind(("127.0.0.1", port)).is_ok()
                && (!cluster || TcpListener::bind(("127.0.0.1", port + 10000)).is_ok())
            {
                return port;
            }
        }
    }
    loop {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = listener.local_addr().unwrap().port();
        if !cluster {
            return port;
        }
        if port < 55535 && TcpListener::bind(("127.0.0.1", port + 10000)).is_ok() {
            return port;
        }
    }
}

/// The first port of the kernel's ephemeral range (Linux's default when it cannot be read).
fn ephemeral_start() -> u16 {
    fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|r| r.split_whitespace().next()?.parse().ok())
        .unwrap_or(32768)
}

fn temp_dir(kind: &str) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "leaseq-{kind}-{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create temp dir");
    remove_at_exit(&dir);
    dir
}

/// The temp dirs this process made, removed when it exits: a server or cluster kept in a
/// `static` for a whole test binary is never dropped, and certificates are left to the caller.
static TEMP_DIRS: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

extern "C" fn remove_temp_dirs() {
    if let Ok(dirs) = TEMP_DIRS.lock() {
        for dir in dirs.iter() {
            let _ = fs::remove_dir_all(dir);
        }
    }
}

/// Notes `dir` for removal at exit. Rust's test harness (and `main`'s return) ends the process
/// with C's `exit`, which runs `atexit` handlers; the servers' guards kill them just after, when
/// their stdin closes.
fn remove_at_exit(dir: &Path) {
    static REGISTER: std::sync::Once = std::sync::Once::new();
    extern "C" {
        fn atexit(callback: extern "C" fn()) -> std::os::raw::c_int;
    }
    REGISTER.call_once(|| {
        // SAFETY: `atexit` takes a plain function pointer with no arguments; the callback only
        // locks a static and removes paths, and it never unwinds (remove errors are ignored).
        unsafe {
            atexit(remove_temp_dirs);
        }
    });
    if let Ok(mut dirs) = TEMP_DIRS.lock() {
        dirs.push(dir.to_path_buf());
    }
}
