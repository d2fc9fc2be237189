"""The dashboard's live event log in a real headless Chromium: run by cli/tests/integration/browser_events.rs,
which prepares the queue `{live}` (events on, empty) and `{quiet}` (events off), starts this
script, waits for FLAG_FILE, then adds the item `<b>live</b>` and completes it, and adds `bad`
and fails it for good with the error `<img src=x onerror=alert(1)>`, all from outside the page.
Usage: events.py BASE_URL FLAG_FILE SCREENSHOT_DIR
"""

import atexit
import os
import shutil
import sys
import tempfile

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

BASE, FLAG, SHOTS = sys.argv[1:4]
WAIT = 30


def browser():
    """Chromium as dashboard.py starts it."""
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


def log(driver):
    """The live log's entries, oldest first: (event, item id, text)."""
    return driver.execute_script(
        "return [...document.querySelectorAll('#event-log li')].reverse()"
        ".map(li => [li.dataset.event, li.dataset.id, li.textContent]);")


def events_state(driver):
    return driver.find_element(By.ID, "events-state").text


def main():
    passed = 0
    driver = browser()
    wait = WebDriverWait(driver, WAIT, ignored_exceptions=[StaleElementReferenceException])
    try:
        # 1. A queue whose events are off says so, and how to turn them on.
        driver.get(BASE + "#queue=%7Bquiet%7D")
        wait.until(lambda d: "events are off" in events_state(d))
        assert "--events on" in events_state(driver), events_state(driver)
        passed += 1

        # 2. The queue whose events are on follows its stream; a mark in the page tells a
        # reload apart (it would be gone).
        driver.get(BASE + "#queue=%7Blive%7D")
        wait.until(lambda d: "events on" in events_state(d))
        driver.execute_script("window.leaseqMark = 'still here';")
        with open(FLAG, "w") as f:
            f.write("following\n")
        passed += 1

        # 3. What another client does shows in the log as it happens, in order, as text.
        wait.until(lambda d: [e[0] for e in log(d) if e[1] == "<b>live</b>"]
                   == ["added", "leased", "completed"])
        wait.until(lambda d: [e[0] for e in log(d) if e[1] == "bad"]
                   == ["added", "leased", "failed", "dead"])
        failed = [e for e in log(driver) if e[1] == "bad" and e[0] == "failed"][0]
        assert "<img src=x onerror=alert(1)>" in failed[2], failed
        assert driver.execute_script(
            "return document.querySelectorAll('#event-log b, #event-log img').length") == 0
        passed += 1

        # 4. Without a reload; and the queue's own view followed (the dead letter is listed).
        assert driver.execute_script("return window.leaseqMark") == "still here"
        wait.until(lambda d: "bad" in [c.text for c in d.find_elements(
            By.CSS_SELECTOR, "#dead tbody tr td:first-child")])
        driver.save_screenshot(os.path.join(SHOTS, "events.png"))
        passed += 1
    finally:
        driver.quit()
        print(f"browser-events: {passed} passed, {4 - passed} failed")


if __name__ == "__main__":
    main()
