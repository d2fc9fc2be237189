"""The dashboard in a real headless Chromium (Debian's chromium and chromium-driver), driven by
selenium. Run by cli/tests/integration/browser.rs, which prepares the queue `{web}`:
  - `xss`: a waiting item whose data is `<script>alert(1)</script>` followed by bytes 0xff 0xfe;
  - `d1` (error type Timeout) and `d2` (error type ValueError): dead letters;
  - no per-minute counters (the default);
  - a capacity of 100 (waiting and delayed items count against it), and not paused;
  - a rate limit of 1000 leases a second, not held off (the page's test holds it off);
and the queue `{counted}`, whose counters are on, with one dead letter, no rate limit, and its
leases held off for an hour. The page's test adds two items of the group `<b>acme</b>` to
`{web}` itself, looks the group up, pauses and resumes it, and holds it off through the command.
And `{browse}`, the job browser's: `done1` completed with its result kept, 72 waiting items
`w00`..`w71`, `later1` and `later2` delayed by an hour, dead letters `b1` and `<b>b2</b>`
(Timeout) and `b3` (ValueError).
Usage: dashboard.py BASE_URL LEASEQ_BIN REDIS_URL SCREENSHOT_DIR [MODE]
MODE: `all` (the above), `down` (the dashboard started while Redis is down: the page shows it,
writes SCREENSHOT_DIR/down.flag, and must show the queue `{back}` once browser.rs started Redis
and added it), `readme` (the README's screenshot of the queue `{emails}`).
"""

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

from prometheus_client.openmetrics.parser import text_string_to_metric_families
from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

BASE, LEASEQ, REDIS, SHOTS = sys.argv[1:5]
MODE = sys.argv[5] if len(sys.argv) > 5 else "all"
QUEUE = "{web}"
# Generous: a condition that holds is seen at the next refresh (2 s); this only bounds a failure.
WAIT = 30


def leaseq(*args, check=True):
    out = subprocess.run([LEASEQ, "--url", REDIS, *args], capture_output=True, text=True)
    if check and out.returncode != 0:
        raise AssertionError(f"leaseq {args}: {out.returncode} {out.stderr}")
    return out


def state(item_id):
    return json.loads(leaseq("get", "-q", QUEUE, item_id, "--json").stdout)["state"]


def browser():
    profile = tempfile.mkdtemp(prefix="leaseq-chromium-")
    # Gone when the test process ends, after the driver has quit (its finally).
    atexit.register(shutil.rmtree, profile, ignore_errors=True)
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("LEASEQ_CHROMIUM", "/usr/bin/chromium")
    for flag in [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={profile}", "--window-size=1280,1400",
    ]:
        options.add_argument(flag)
    service = Service(executable_path=os.environ.get("LEASEQ_CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=options)


def queue_row(driver):
    rows = driver.find_elements(By.CSS_SELECTOR, "#queues tbody tr")
    return next((r for r in rows if r.get_attribute("data-queue") == QUEUE), None)


def waiting_count(driver):
    cells = row_cells(driver)
    return int(cells[1]) if cells else None


def dead_ids(driver):
    return driver.execute_script(
        "return [...document.querySelectorAll('#dead tbody tr')].map(r => r.dataset.id);")


def click_requeue(driver, item_id):
    row = next(r for r in driver.find_elements(By.CSS_SELECTOR, "#dead tbody tr")
               if r.get_attribute("data-id") == item_id)
    row.find_element(By.XPATH, ".//button[text()='Requeue']").click()
    return True


def answer(driver, accept):
    """Answers the confirmation an action asks first; its text, or False while none shows."""
    try:
        alert = driver.switch_to.alert
    except NoAlertPresentException:
        return False
    text = alert.text
    if accept:
        alert.accept()
    else:
        alert.dismiss()
    return text


def href(queue, **params):
    """The dashboard's address of a queue's view: the page keeps where it is in the fragment."""
    from urllib.parse import urlencode
    return BASE + "#" + urlencode({"queue": queue, **params})


def pager(driver):
    return shown(driver, "pager")


def list_ids(driver):
    return driver.execute_script(
        "return [...document.querySelectorAll('#list tbody tr')].map(r => r.dataset.id);")


def shown(driver, element_id):
    """An element's shown text, or None when there is none, read in one script call: the page
    re-renders every 2 s, and an element found by one call and read by the next may have been
    replaced in between (a stale element)."""
    return driver.execute_script(
        "const e = document.getElementById(arguments[0]);"
        "return e ? e.innerText.trim() : null;", element_id)


def texts(driver, css):
    """The shown texts of the elements that `css` selects, read in one script call (see shown)."""
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(e => e.innerText.trim());", css)


def click(driver, by, what):
    """Clicks an element that a refresh of the page may replace between finding and clicking it
    (the pager, the list, the job's view): a stale element was not clicked, so it is found and
    clicked again."""
    def attempt(d):
        d.find_element(by, what).click()
        return True
    WebDriverWait(driver, WAIT, ignored_exceptions=[StaleElementReferenceException]).until(attempt)


def click_in_row(driver, item_id, label):
    row = next(r for r in driver.find_elements(By.CSS_SELECTOR, "#list tbody tr")
               if r.get_attribute("data-id") == item_id)
    row.find_element(By.XPATH, f".//button[text()='{label}']").click()
    return True


def log_lines(driver):
    return texts(driver, "#action-log li")


def status_text(driver):
    return shown(driver, "status")


def refreshed(driver):
    """Waits for the page's next refresh (its status line's time changes)."""
    before = status_text(driver)
    WebDriverWait(driver, WAIT, ignored_exceptions=[StaleElementReferenceException]).until(
        lambda d: status_text(d) != before and status_text(d).startswith("updated"))


def cli_state(queue, item_id):
    out = leaseq("get", "-q", queue, item_id, "--json", check=False)
    return json.loads(out.stdout)["state"] if out.returncode == 0 else None


def row_cells(driver, queue=QUEUE):
    return driver.execute_script(
        "const r = [...document.querySelectorAll('#queues tbody tr')]"
        "  .find(r => r.dataset.queue === arguments[0]);"
        "return r ? [...r.querySelectorAll('td')].map(td => td.innerText.trim()) : [];", queue)


def chart_text(driver):
    return shown(driver, "chart")


def chart_drawn(driver):
    return len(driver.find_elements(By.CSS_SELECTOR, "#chart svg")) == 1


def click_switch(driver, label):
    """Clicks the counters' switch when it reads `label`; False (wait on) while it does not."""
    buttons = driver.find_elements(By.CSS_SELECTOR, "#counters-switch button")
    if not buttons or buttons[0].text != label:
        return False
    buttons[0].click()
    return True


def counters_on():
    config = json.loads(leaseq("config", "-q", QUEUE, "--json").stdout)
    return config["effective"]["stats"]


def queue_state(driver):
    return shown(driver, "queue-state")


def click_flow(driver, label):
    """Clicks the Pause / Resume button when it reads `label`; False (wait on) while it does not."""
    buttons = driver.find_elements(By.ID, "pause-resume")
    if not buttons or buttons[0].text != label:
        return False
    buttons[0].click()
    return True


def rate_text(driver):
    return shown(driver, "rate-limit")


def paused():
    return json.loads(leaseq("stats", "-q", QUEUE, "--json").stdout)["paused"]


GROUP = "<b>acme</b>"


def group_cells(driver):
    return texts(driver, "#group tbody td")


def click_group_action(driver, label):
    """Clicks the group's Pause / Resume button when it reads `label`; False while it does not."""
    buttons = driver.find_elements(By.ID, "group-pause-resume")
    if not buttons or buttons[0].text != label:
        return False
    buttons[0].click()
    return True


def group_paused():
    return json.loads(leaseq("group", "-q", QUEUE, GROUP, "--json").stdout)["paused"]


def no_alert(driver):
    try:
        text = driver.switch_to.alert.text
    except NoAlertPresentException:
        return
    raise AssertionError(f"a script ran: alert({text!r})")


def main():
    passed = 0
    driver = browser()
    # The page re-renders every 2 s: an element found just before may be replaced; look again.
    wait = WebDriverWait(driver, WAIT, ignored_exceptions=[StaleElementReferenceException])
    try:
        # 1. The page loads and shows the queue with its counts.
        driver.get(BASE)
        wait.until(lambda d: waiting_count(d) == 1)
        driver.save_screenshot(os.path.join(SHOTS, "1-queues.png"))
        passed += 1

        # 2. Counts follow the queue: two adds show up as 3 waiting.
        leaseq("add", "-q", QUEUE, "--data", "one more")
        leaseq("add", "-q", QUEUE, "--data", "and another")
        wait.until(lambda d: waiting_count(d) == 3)
        passed += 1

        # 3. The queue's page: dead letters grouped by error type, each dead letter listed.
        wait.until(lambda d: queue_row(d).click() or True)
        wait.until(lambda d: sorted(dead_ids(d)) == ["d1", "d2"])
        groups = driver.execute_script(
            "return [...document.querySelectorAll('#dead-groups tbody tr')]"
            ".map(r => r.firstChild.textContent);")
        assert sorted(groups) == ["Timeout", "ValueError"], groups
        # The live runners, from the registry; their text is shown as text.
        wait.until(lambda d: "web-runner-1" in shown(d, "workers"))
        runner = texts(driver, "#workers tbody tr td")
        assert runner[:4] == ["web-runner-1", "<i>go</i>", "2/4", "12"], runner
        assert runner[-1] == "yes", runner
        # The recurring jobs, with their next fire times; a name with markup is text.
        leaseq("schedules", "add", "-q", QUEUE, "<b>nightly</b>", "--cron", "0 3 * * *",
               "--tz", "Europe/Berlin", "--missed", "once")
        wait.until(lambda d: "<b>nightly</b>" in shown(d, "schedules"))
        sched = texts(driver, "#schedules tbody tr td")
        assert sched[:2] == ["<b>nightly</b>", "0 3 * * * (Europe/Berlin)"], sched
        assert "(in " in sched[2] and sched[3] == "once", sched
        leaseq("schedules", "rm", "-q", QUEUE, "<b>nightly</b>")
        driver.save_screenshot(os.path.join(SHOTS, "2-queue.png"))
        passed += 1

        # 4. Counters off (the default): the chart says so instead of drawing nothing, and the
        # queue's row reads "off" where a counting queue has numbers. The switch turns them on,
        # through the same CSRF-guarded POST as every action, and off again.
        wait.until(lambda d: "Counters are off for this queue" in chart_text(d))
        assert not chart_drawn(driver)
        wait.until(lambda d: row_cells(d)[7:9] == ["off", "off"])
        wait.until(lambda d: row_cells(d, "{counted}")[7:9] == ["0", "1"])
        driver.save_screenshot(os.path.join(SHOTS, "2-counters-off.png"))
        wait.until(lambda d: click_switch(d, "Turn counters on"))
        wait.until(chart_drawn)
        assert "Counters are off" not in chart_text(driver)
        assert counters_on() is True
        wait.until(lambda d: row_cells(d)[7:9] == ["0", "0"])
        driver.save_screenshot(os.path.join(SHOTS, "2-counters-on.png"))
        wait.until(lambda d: click_switch(d, "Turn counters off"))
        wait.until(lambda d: "Counters are off for this queue" in chart_text(d))
        assert counters_on() is False
        passed += 1

        # 5. Pause, then Resume: the queue's badge and its row in the list say which, the
        # action goes through the same CSRF-guarded POST as every action, and every client sees
        # it (read back through the command). The capacity shows as "held / capacity".
        wait.until(lambda d: queue_state(d) == "running")
        wait.until(lambda d: row_cells(d)[9:11] == ["running", "3 / 100"])
        wait.until(lambda d: row_cells(d, "{counted}")[9:11] == ["running", "-"])
        assert shown(driver, "capacity") == "Capacity: 3 / 100 (waiting and delayed)."
        wait.until(lambda d: click_flow(d, "Pause"))
        wait.until(lambda d: queue_state(d) == "paused")
        wait.until(lambda d: row_cells(d)[9] == "paused")
        assert paused() is True
        driver.save_screenshot(os.path.join(SHOTS, "2-paused.png"))
        wait.until(lambda d: click_flow(d, "Resume"))
        wait.until(lambda d: queue_state(d) == "running")
        wait.until(lambda d: row_cells(d)[9] == "running")
        assert paused() is False
        passed += 1

        # 6. The rate limit: `{web}` allows 1000 leases a second and is not held off; `{counted}`
        # has no limit but a hold of an hour. The list and the queue's page say which; a hold
        # set through the command shows up on the page.
        wait.until(lambda d: row_cells(d)[11] == "1000/1s")
        wait.until(lambda d: row_cells(d, "{counted}")[11] == "held off")
        wait.until(lambda d: rate_text(d) == "Rate limit: 1000 leases per 1s. Leases are not held off.")
        leaseq("hold", "-q", QUEUE, "1h")
        wait.until(lambda d: row_cells(d)[11] == "1000/1s, held off")
        wait.until(lambda d: rate_text(d).startswith(
            "Rate limit: 1000 leases per 1s. Leases are held off for "))
        driver.save_screenshot(os.path.join(SHOTS, "2-held-off.png"))
        passed += 1

        # 7. A <script> payload (and bytes that are not UTF-8) shows as text and never runs.
        driver.find_element(By.ID, "job-id").send_keys("xss")
        click(driver, By.CSS_SELECTOR, "#job-form button")
        wait.until(lambda d: "<script>" in shown(d, "job"))
        job = shown(driver, "job")
        assert "<script>alert(1)</script>\\xff\\xfe" in job, job
        assert len(driver.find_elements(By.TAG_NAME, "script")) == 1, "a script element was injected"
        no_alert(driver)
        driver.save_screenshot(os.path.join(SHOTS, "3-job.png"))
        passed += 1

        # 8. An action without the CSRF header is refused, from the page itself; nothing changes.
        status = driver.execute_async_script(
            "const done = arguments[0];"
            "fetch('/api/requeue', {method: 'POST', headers: {'content-type': 'application/json'},"
            " body: JSON.stringify({queue: '{web}', ids: ['d2']})}).then(r => done(r.status));"
        )
        assert status == 403, status
        assert state("d2") == "dead"
        passed += 1

        # 9. A page of another origin cannot act either (its request is refused or never sent).
        driver.get("data:text/html,<p>elsewhere</p>")
        driver.execute_async_script(
            "const done = arguments[0];"
            f"fetch('{BASE}api/requeue', {{method: 'POST', mode: 'no-cors',"
            " headers: {'content-type': 'text/plain'},"
            " body: JSON.stringify({queue: '{web}', ids: ['d2']})})"
            ".then(() => done(1), () => done(0));"
        )
        assert state("d2") == "dead"
        passed += 1

        # 10. The requeue button of a dead letter puts it back to waiting.
        driver.get(BASE)
        wait.until(lambda d: queue_row(d) is not None)
        wait.until(lambda d: queue_row(d).click() or True)
        wait.until(lambda d: "d1" in dead_ids(d))
        # A click on a row replaced meanwhile raises and is tried again; requeueing an item that
        # is no longer dead does nothing, so a repeat cannot hide a failure.
        wait.until(lambda d: click_requeue(d, "d1"))
        # It asks first.
        assert "d1" in wait.until(lambda d: answer(d, True))
        wait.until(lambda d: "d1" not in dead_ids(d))
        assert state("d1") == "waiting"
        assert state("d2") == "dead"
        wait.until(lambda d: waiting_count(d) == 4)
        driver.save_screenshot(os.path.join(SHOTS, "4-requeued.png"))
        passed += 1

        # 11. A group, looked up by name (the page lists none: the protocol keeps no list of
        # groups): its counts and limit, its name shown as text, Pause and Resume through the
        # same CSRF-guarded POST as every action, seen by every client; the job shows its group.
        leaseq("add", "-q", QUEUE, "--id", "g1", "--data", "x", "--group", GROUP)
        leaseq("add", "-q", QUEUE, "--id", "g2", "--data", "y", "--group", GROUP)
        assert driver.find_element(By.ID, "group").get_attribute("hidden") is not None
        driver.find_element(By.ID, "group-name").send_keys(GROUP)
        click(driver, By.CSS_SELECTOR, "#group-form button")
        wait.until(lambda d: group_cells(d) == [GROUP, "2", "0", "1", "running", "-",
                                                "Pause group"])
        assert len(driver.find_elements(By.CSS_SELECTOR, "#group b")) == 0, "markup from a name"
        wait.until(lambda d: click_group_action(d, "Pause group"))
        wait.until(lambda d: group_cells(d)[4:] == ["paused", "-", "Resume group"])
        assert group_paused() is True
        driver.save_screenshot(os.path.join(SHOTS, "5-group-paused.png"))
        wait.until(lambda d: click_group_action(d, "Resume group"))
        wait.until(lambda d: group_cells(d)[4:] == ["running", "-", "Pause group"])
        assert group_paused() is False
        # Held off through the command (`leaseq hold --group`), as a runner whose handler was
        # rate limited for the group: the page shows for how long, the queue itself is not held.
        leaseq("hold", "-q", QUEUE, "--group", GROUP, "1h")
        wait.until(lambda d: group_cells(d)[5].startswith("held off for "))
        assert "held" in driver.find_element(By.ID, "group-rate").get_attribute("class")
        assert len(driver.find_elements(By.CSS_SELECTOR, "#group b")) == 0, "markup from a name"
        driver.save_screenshot(os.path.join(SHOTS, "5-group-held.png"))
        # A name the protocol refuses is answered in the table, not by a broken page.
        name = driver.find_element(By.ID, "group-name")
        name.clear()
        name.send_keys("a" * 300)
        click(driver, By.CSS_SELECTOR, "#group-form button")
        wait.until(lambda d: "`group`" in " ".join(group_cells(d)))
        job = driver.find_element(By.ID, "job-id")
        job.clear()
        job.send_keys("g1")
        click(driver, By.CSS_SELECTOR, "#job-form button")
        wait.until(lambda d: GROUP in shown(d, "job"))
        fields = driver.execute_script(
            "return [...document.querySelectorAll('#job dt')].map(dt => "
            "[dt.textContent, dt.nextElementSibling.textContent]);")
        assert ["group", GROUP] in fields, fields
        no_alert(driver)
        passed += 1

        passed += browse(driver, wait)
    except Exception:
        driver.save_screenshot(os.path.join(SHOTS, "failure.png"))
        raise
    finally:
        driver.quit()

    # 12. /metrics parses as OpenMetrics and agrees with the queue.
    text = urllib.request.urlopen(BASE + "metrics").read().decode()
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for family in text_string_to_metric_families(text) for s in family.samples}
    stats = json.loads(leaseq("stats", "-q", QUEUE, "--json").stdout)
    for st in ["waiting", "delayed", "leased", "dead", "processing"]:
        got = samples[("leaseq_jobs", (("queue", QUEUE), ("state", st)))]
        assert got == stats[st], (st, got, stats[st])
    assert ("leaseq_oldest_waiting_age_seconds", (("queue", QUEUE),)) in samples
    # `{web}` does not count (the page turned its counters off again): it says so, and has no
    # totals that would read as an idle queue; `{counted}` has them.
    assert samples[("leaseq_counters_enabled", (("queue", QUEUE),))] == 0
    assert ("leaseq_dead_total", (("queue", QUEUE),)) not in samples
    counted = (("queue", "{counted}"),)
    assert samples[("leaseq_counters_enabled", counted)] == 1
    assert samples[("leaseq_dead_total", counted)] == 1
    assert samples[("leaseq_failed_total", counted)] == 1
    assert samples[("leaseq_completed_total", counted)] == 0
    # The page paused `{web}` and resumed it again; it is bounded, `{counted}` is not.
    assert samples[("leaseq_paused", (("queue", QUEUE),))] == 0
    assert samples[("leaseq_paused", counted)] == 0
    assert samples[("leaseq_capacity", (("queue", QUEUE),))] == 100
    assert ("leaseq_capacity", counted) not in samples
    # `{web}` has a rate limit and was held off for an hour; `{counted}` is held off only.
    assert samples[("leaseq_rate_limit_max", (("queue", QUEUE),))] == 1000
    assert samples[("leaseq_rate_limit_window_seconds", (("queue", QUEUE),))] == 1
    assert ("leaseq_rate_limit_max", counted) not in samples
    assert ("leaseq_rate_limit_window_seconds", counted) not in samples
    for labels in [(("queue", QUEUE),), counted]:
        assert 0 < samples[("leaseq_rate_limited_seconds", labels)] <= 3600, labels
    # Nothing per group: no series carries a group label.
    assert all("group" not in dict(labels) for (_, labels) in samples), samples
    passed += 1

    # 13. Off loopback without a token, the dashboard does not start.
    out = leaseq("dashboard", "--listen", "0.0.0.0:0", check=False)
    assert out.returncode == 2 and "--token" in out.stderr, (out.returncode, out.stderr)
    passed += 1

    print(f"browser: {passed} passed, 0 failed")


BROWSE = "{browse}"


def browse(driver, wait):
    """The job browser on `{browse}`: its steps, each counted."""
    passed = 0
    # 14. A state's list has its own address (reloaded, it shows the same page), is paged
    # ("1–50 of 72"), and its next and previous pages have theirs.
    driver.get(href(BROWSE, state="waiting"))
    wait.until(lambda d: pager(d).startswith("1–50 of 72"))
    assert len(list_ids(driver)) == 50 and list_ids(driver)[0] == "w00"
    click(driver, By.CSS_SELECTOR, "#pager a.next")
    wait.until(lambda d: pager(d).startswith("51–72 of 72"))
    assert "start=50" in driver.current_url
    driver.refresh()
    wait.until(lambda d: pager(d).startswith("51–72 of 72"))
    assert list_ids(driver)[0] == "w50"
    assert not driver.find_elements(By.CSS_SELECTOR, "#pager a.next")
    driver.save_screenshot(os.path.join(SHOTS, "6-page-2.png"))
    click(driver, By.CSS_SELECTOR, "#pager a.prev")
    wait.until(lambda d: pager(d).startswith("1–50 of 72"))
    passed += 1

    # 15. Every state has its list: the tabs lead to dead letters, filtered by error type (the
    # filter is part of the address and says how far it looked); ids that are markup show as
    # text.
    click(driver, By.XPATH, "//nav[@id='states']/a[text()='dead']")
    wait.until(lambda d: sorted(list_ids(d)) == ["<b>b2</b>", "b1", "b3"])
    driver.find_element(By.ID, "filter-type").send_keys("Timeout")
    click(driver, By.CSS_SELECTOR, "#filter-form button")
    wait.until(lambda d: sorted(list_ids(d)) == ["<b>b2</b>", "b1"])
    assert "error_type=Timeout" in driver.current_url
    wait.until(lambda d: pager(d).startswith("2 matching among positions 1–3 of 3"))
    driver.refresh()
    wait.until(lambda d: sorted(list_ids(d)) == ["<b>b2</b>", "b1"])
    assert not driver.find_elements(By.CSS_SELECTOR, "#list b"), "markup from an id"
    no_alert(driver)
    driver.save_screenshot(os.path.join(SHOTS, "6-filtered.png"))
    # A name no item has: nothing, and the page says so.
    driver.get(href(BROWSE, state="dead", name="nosuch"))
    wait.until(lambda d: pager(d).startswith("0 matching among positions 1–3 of 3"))
    assert list_ids(driver) == []
    # Done: the item completed with its result kept.
    driver.get(href(BROWSE, state="done"))
    wait.until(lambda d: list_ids(d) == ["done1"])
    assert shown(driver, "list-time") == "finished"
    passed += 1

    # 16. Delayed items, promoted now: the action asks first (dismissed, nothing changes), then
    # acts; its result stays in the actions' list through the refreshes that follow.
    driver.get(href(BROWSE, state="delayed"))
    wait.until(lambda d: sorted(list_ids(d)) == ["later1", "later2"])
    wait.until(lambda d: click_in_row(d, "later1", "Promote"))
    assert "later1" in wait.until(lambda d: answer(d, False))
    refreshed(driver)
    assert cli_state(BROWSE, "later1") == "delayed"
    assert not any("later1" in line for line in log_lines(driver))
    wait.until(lambda d: click_in_row(d, "later1", "Promote"))
    wait.until(lambda d: answer(d, True))
    wait.until(lambda d: any("promoted later1" in line for line in log_lines(d)))
    assert cli_state(BROWSE, "later1") == "waiting"
    wait.until(lambda d: list_ids(d) == ["later2"])
    refreshed(driver)
    refreshed(driver)
    assert any("promoted later1" in line for line in log_lines(driver)), log_lines(driver)
    driver.save_screenshot(os.path.join(SHOTS, "6-promoted.png"))
    passed += 1

    # 17. A job has its own address (the search by id leads to it, a reload shows it again),
    # and its actions; cancel asks first, and its result stays.
    driver.find_element(By.ID, "search-id").send_keys("w07")
    click(driver, By.CSS_SELECTOR, "#search-form button")
    wait.until(lambda d: "w07" in shown(d, "job"))
    assert "job=w07" in driver.current_url
    driver.refresh()
    wait.until(lambda d: "waiting" in shown(d, "job"))
    # No trace: nothing of it shows.
    assert not driver.find_element(By.ID, "job-trace").is_displayed()
    click(driver, By.XPATH, "//div[@id='job-actions']/button[text()='Cancel']")
    assert "w07" in wait.until(lambda d: answer(d, True))
    wait.until(lambda d: any("cancelled w07 (was waiting)" in line for line in log_lines(d)))
    wait.until(lambda d: "no item `w07`" in shown(d, "job"))
    assert cli_state(BROWSE, "w07") is None
    # Its id stays in the waiting list until a lease drops it: the first page covers the same
    # 50 positions, lists 49 and says why (later1, promoted, makes 73).
    driver.get(href(BROWSE, state="waiting"))
    wait.until(lambda d: pager(d).startswith("1–50 of 73 (1 not listed: gone since"))
    assert len(list_ids(driver)) == 49 and "w07" not in list_ids(driver)
    passed += 1

    # 18. A job that carries a trace (a failed attempt's, as /api/item reports it) shows it in
    # a <pre>, as text. The page's fetch is wrapped to add one to the job it reads.
    driver.execute_script(
        "const real = window.fetch;"
        "window.fetch = async (url, init) => {"
        "  const r = await real(url, init);"
        "  if (!String(url).startsWith('/api/item?')) return r;"
        "  const j = await r.json();"
        "  j.trace = 'Traceback (most recent call last):\\n  <b>raise</b> Timeout()';"
        "  return new Response(JSON.stringify(j), {status: r.status,"
        "    headers: {'content-type': 'application/json'}});"
        "};")
    driver.execute_script("location.hash = arguments[0];",
                          href(BROWSE, state="dead", job="b1").split("#", 1)[1])
    wait.until(lambda d: d.find_element(By.ID, "job-trace").is_displayed())
    assert driver.find_elements(By.CSS_SELECTOR, "pre#job-trace"), "a trace outside <pre>"
    assert "<b>raise</b> Timeout()" in shown(driver, "job-trace"), shown(driver, "job-trace")
    assert not driver.find_elements(By.CSS_SELECTOR, "#job-trace b"), "markup from a trace"
    no_alert(driver)
    passed += 1

    # 19. The throughput chart has axes and a scale: items a minute, minutes ago, labelled.
    driver.get(href("{counted}"))
    wait.until(chart_drawn)
    labels = driver.execute_script(
        "return [...document.querySelectorAll('#chart svg text')].map(t => t.textContent);")
    for label in ["items/min", "minutes ago", "now", "-60", "-30", "0", "1", "2"]:
        assert label in labels, (label, labels)
    assert driver.find_elements(By.CSS_SELECTOR, "#chart svg rect.dead")
    driver.save_screenshot(os.path.join(SHOTS, "7-chart.png"))
    passed += 1

    # 20. Purge asks first: dismissed, the dead letters stay.
    driver.get(href(BROWSE, state="dead"))
    wait.until(lambda d: len(list_ids(d)) == 3)
    click(driver, By.ID, "purge-all")
    assert BROWSE in wait.until(lambda d: answer(d, False))
    refreshed(driver)
    assert len(list_ids(driver)) == 3
    passed += 1

    # 21. Every API answer is JSON, a missing parameter's and an unknown path's too, as the
    # page's own fetch sees them.
    answers = driver.execute_async_script(
        "const done = arguments[0];"
        "Promise.all(['/api/items?state=dead', '/api/nosuch'].map(async (u) => {"
        "  const r = await fetch(u);"
        "  return [r.status, r.headers.get('content-type'), (await r.json()).error];"
        "})).then(done, (e) => done(String(e)));")
    assert [a[0] for a in answers] == [400, 404], answers
    assert all(a[1].startswith("application/json") and a[2] for a in answers), answers
    assert "queue" in answers[0][2], answers
    passed += 1

    # 22. A job's dependencies (spec 5.24): what it waits for and what waits for it, each id a
    # link to that job, ids that are markup shown as text.
    leaseq("add", "-q", "{deps}", "--id", "kid", "--data", "k")
    leaseq("add", "-q", "{deps}", "--id", "<i>parent</i>", "--data", "p", "--depends-on", "kid")
    driver.get(href("{deps}", state="blocked", job="<i>parent</i>"))
    wait.until(lambda d: "blocked" in shown(d, "job"))
    assert "waits for" in shown(driver, "job")
    assert not driver.find_elements(By.CSS_SELECTOR, "#job i"), "markup from an id"
    wait.until(lambda d: "<i>parent</i>" in " ".join(list_ids(d)))
    click(driver, By.XPATH, "//dl[@id='job']//a[text()='kid']")
    wait.until(lambda d: d.find_elements(By.XPATH, "//dl[@id='job']//a[text()='<i>parent</i>']"))
    assert "waited for by" in shown(driver, "job")
    no_alert(driver)
    passed += 1
    return passed


def down():
    """The dashboard started while Redis is down: the page says so, and recovers by itself."""
    driver = browser()
    wait = WebDriverWait(driver, WAIT, ignored_exceptions=[StaleElementReferenceException])
    try:
        driver.get(BASE)
        wait.until(lambda d: d.find_element(By.ID, "down").is_displayed())
        assert "Cannot read the queues" in shown(driver, "down")
        driver.save_screenshot(os.path.join(SHOTS, "8-redis-down.png"))
        with open(os.path.join(SHOTS, "down.flag"), "w") as f:
            f.write("shown\n")
        wait.until(lambda d: any(r.get_attribute("data-queue") == "{back}"
                                 for r in d.find_elements(By.CSS_SELECTOR, "#queues tbody tr")))
        wait.until(lambda d: not d.find_element(By.ID, "down").is_displayed())
        driver.save_screenshot(os.path.join(SHOTS, "8-redis-back.png"))
    except Exception:
        driver.save_screenshot(os.path.join(SHOTS, "failure-down.png"))
        raise
    finally:
        driver.quit()
    print("browser-down: 1 passed, 0 failed")


def readme():
    """The README's screenshot: the queue `{emails}`, its dead letters listed."""
    driver = browser()
    wait = WebDriverWait(driver, WAIT, ignored_exceptions=[StaleElementReferenceException])
    try:
        driver.get(href("{emails}", state="dead"))
        wait.until(lambda d: len(list_ids(d)) == 5)
        wait.until(chart_drawn)
        wait.until(lambda d: "mailer-7f3c" in shown(d, "workers"))
        driver.save_screenshot(os.path.join(SHOTS, "readme.png"))
    finally:
        driver.quit()
    print("browser-readme: 1 passed, 0 failed")


if __name__ == "__main__":
    {"all": main, "down": down, "readme": readme}[MODE]()
