#!/usr/bin/env python3
"""Drives the web console (GET /ui) in headless Chromium through Selenium, against a running sqlited.

Run by ConsoleBrowserTests (and `make screenshots`), which starts the binary with three tokens and fills the
database; see that file for the data. Prints one line per step; exits non-zero at the first failed check.

Arguments: --url BASE --off-url BASE (a server with console.enabled false) --read/--write/--admin TOKEN
--downloads DIR [--screenshots DIR]
"""
import argparse
import os
import sys
import time

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

XSS = '<img src=x onerror="window.__xss=1;alert(1)">'


def step(message):
    print("ok:", message, flush=True)


def fail(message):
    print("FAILED:", message, flush=True)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


class Console:
    def __init__(self, driver, base):
        self.driver = driver
        self.base = base

    def wait(self, condition, what, timeout=20):
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.1).until(lambda d: condition())
        except TimeoutException:
            fail("timed out waiting for " + what)

    def find(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def finds(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def text(self, css):
        found = self.finds(css)
        return found[0].text if found else ""

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def enter_token(self, token):
        self.wait(lambda: self.js("return document.getElementById('token-dialog').open"), "the token prompt")
        field = self.find("#token-input")
        field.clear()
        field.send_keys(token)
        field.send_keys(Keys.ENTER)

    def role(self):
        return self.js("return document.getElementById('who').dataset.role || ''")

    def open_table(self, name):
        self.wait(lambda: self.js(
            "return [...document.querySelectorAll('#table-list button')].some(b => b.dataset.table === arguments[0])",
            name), "table " + name + " in the list")
        self.js("[...document.querySelectorAll('#table-list button')]"
                ".find(b => b.dataset.table === arguments[0]).click()", name)
        self.wait(lambda: self.text("#table-title") == name, "the table's title")

    def info(self):
        return self.text("#rows-info")

    def column(self, index):
        """The text of column `index` of every row of the browser's grid."""
        return self.js("return [...document.querySelectorAll('#rows-grid tbody tr')]"
                       ".map(tr => tr.children[arguments[0]].textContent)", index)

    def wait_info(self, prefix):
        self.wait(lambda: self.info().startswith(prefix), "rows info " + repr(prefix) + ", have " + repr(self.info()))

    def add_filter(self, column, op, value):
        Select(self.find("#filter-column")).select_by_value(column)
        Select(self.find("#filter-op")).select_by_value(op)
        field = self.find("#filter-value")
        field.clear()
        field.send_keys(value)
        self.find("#filter-form button[type=submit]").click()

    def clear_filters(self):
        while self.finds("#filter-list button"):
            before = len(self.finds("#filter-list li"))
            self.find("#filter-list button").click()
            self.wait(lambda: len(self.finds("#filter-list li")) < before, "a filter to go")

    def no_xss(self, where):
        check(self.js("return window.__xss") is None, where + ": a payload's script ran")
        try:
            alert = self.driver.switch_to.alert
            fail(where + ": an alert is open: " + alert.text)
        except NoAlertPresentException:
            pass
        check(not self.finds("#rows-grid img, #sql-grid img, #table-list img, #table-schema img"),
              where + ": an <img> element was made from data")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--off-url", required=True)
    parser.add_argument("--read", required=True)
    parser.add_argument("--write", required=True)
    parser.add_argument("--admin", required=True)
    parser.add_argument("--downloads", required=True)
    parser.add_argument("--screenshots")
    args = parser.parse_args()

    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,900", "--disable-extensions", "--no-first-run"]:
        options.add_argument(argument)
    binary = os.environ.get("CHROMIUM_BINARY", "/usr/bin/chromium")
    if os.path.exists(binary):
        options.binary_location = binary
    options.add_experimental_option("prefs", {
        "download.default_directory": args.downloads,
        "download.prompt_for_download": False,
    })
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driverPath = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
    service = webdriver.ChromeService(executable_path=driverPath) if os.path.exists(driverPath) else None
    driver = webdriver.Chrome(options=options, service=service)
    try:
        driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": args.downloads})
        run(Console(driver, args.url), args)
        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
                  and "/ui" in entry.get("message", "") and "Content Security Policy" in entry.get("message", "")]
        check(not errors, "the page broke its own content security policy: " + repr(errors))
    finally:
        driver.quit()
    print("PASSED", flush=True)


def run(c, args):
    d = c.driver
    # The token prompt: the API says 401, the page asks; a wrong token is refused and asked again.
    d.get(args.url + "/")
    c.wait(lambda: d.current_url.endswith("/ui") or "/ui#" in d.current_url, "the redirect from / to /ui")
    c.enter_token("not-a-token-0123456789abcdef")
    c.wait(lambda: "refused" in c.text("#token-reason"), "the refusal of a wrong token")
    c.enter_token(args.read)
    c.wait(lambda: c.role() == "read", "the read role")
    check(args.read not in d.current_url, "the token is in the URL")
    check(c.js("return document.cookie") == "", "a cookie was set")
    check(c.js("return sessionStorage.getItem('sqlited.token')") == args.read, "the token is not in session storage")
    check(c.js("return localStorage.length") == 0, "something was put in local storage")
    step("token prompt (wrong token refused, read token kept in session storage only)")

    # The schema and the table browser, 10 rows a page over 23 rows: three pages with the keyset cursors.
    c.open_table("people")
    Select(c.find("#page-size")).select_by_visible_text("10")
    c.wait_info("Page 1 · 10 rows of 23 matching")
    schema = c.js("return document.getElementById('table-schema-body').textContent")
    check("people_by_age" in schema and "INTEGER" in schema, "the schema shows columns and indexes: " + schema)
    check(not c.finds("#rows-grid button.edit"), "edit buttons shown to a read token")
    check(c.column(0) == [str(i) for i in range(1, 11)], "page 1: " + repr(c.column(0)))
    c.find("#page-next").click()
    c.wait_info("Page 2 · 10 rows")
    check(c.column(0) == [str(i) for i in range(11, 21)], "page 2: " + repr(c.column(0)))
    long = c.column(3)[-1]
    check(long.startswith("long xxx") and long.endswith("… 5005 characters") and len(long) < 250,
          "a 5,005-character text is not cut in the grid: " + repr(long[-40:]))
    c.find("#page-next").click()
    c.wait_info("Page 3 · 3 rows")
    check(c.column(0) == ["21", "22", "23"], "page 3: " + repr(c.column(0)))
    check(c.find("#page-next").get_attribute("disabled") is not None, "Next enabled on the last page")
    c.find("#page-prev").click()
    c.wait_info("Page 2 · 10 rows")
    check(c.column(0)[0] == "11", "back on page 2: " + repr(c.column(0)))
    step("table browser: 23 rows over 3 pages, forward and back; a long text cut in the grid")

    # Values: NULL apart from empty text, a 64-bit integer exact, a blob as its size with a download.
    c.find("#page-prev").click()
    c.wait_info("Page 1")
    cells = c.js("""
        const row = (id) => [...document.querySelectorAll('#rows-grid tbody tr')]
            .find(tr => tr.children[0].textContent === id);
        const cell = (id, i) => row(id).children[i];
        return {
            nullClass: cell('1', 3).firstChild.className, nullText: cell('1', 3).textContent,
            emptyClass: cell('2', 3).firstChild.className,
            big: cell('3', 4).textContent, negative: cell('4', 4).textContent, real: cell('5', 5).textContent,
            blob: cell('6', 6).textContent, blobButtons: cell('6', 6).querySelectorAll('button').length,
        };""")
    check(cells["nullClass"] == "null" and cells["nullText"] == "NULL", "NULL: " + repr(cells))
    check(cells["emptyClass"] == "empty", "empty text: " + repr(cells))
    check(cells["big"] == "9223372036854775807", "big integer: " + repr(cells))
    check(cells["negative"] == "-9007199254740993", "integer beyond 2^53: " + repr(cells))
    check(cells["real"] == "1.0", "REAL keeps its fraction: " + repr(cells))
    check(cells["blob"].startswith("BLOB 3 B") and cells["blobButtons"] == 1, "blob: " + repr(cells))
    step("values: NULL, empty text, 9223372036854775807, -9007199254740993, 1.0, a 3-byte blob")

    # A filter (age > 30) and the sort by a column.
    c.add_filter("age", "__gt", "30")
    c.wait(lambda: len(c.finds("#filter-list li")) == 1, "the filter chip")
    c.wait_info("Page 1 · 10 rows of 13 matching")
    ages = [int(a) for a in c.column(2)]
    check(all(a > 30 for a in ages), "filtered ages: " + repr(ages))
    c.clear_filters()
    c.wait_info("Page 1 · 10 rows of 23 matching")
    c.add_filter("note", "__isnull=true", "")
    c.wait_info("Page 1 · 1 rows of 1 matching")
    c.clear_filters()
    c.wait_info("Page 1 · 10 rows of 23 matching")
    c.js("[...document.querySelectorAll('#rows-grid th button')].find(b => b.textContent.startsWith('age')).click()")
    c.wait(lambda: c.js("return document.querySelector('#rows-grid th[aria-sort=ascending]') !== null"), "the sort")
    c.wait(lambda: c.column(2) == sorted(c.column(2), key=int), "rows sorted by age")
    c.js("[...document.querySelectorAll('#rows-grid th button')].find(b => b.textContent.startsWith('age')).click()")
    c.wait(lambda: c.column(2) == sorted(c.column(2), key=int, reverse=True), "rows sorted by age, descending")
    c.js("[...document.querySelectorAll('#rows-grid th button')].find(b => b.textContent.startsWith('age')).click()")
    c.wait(lambda: c.column(0)[:3] == ["1", "2", "3"], "the key order back")
    step("filters (age > 30: 13 rows; note is NULL: 1 row) and sort by age both ways")

    # The XSS row, table and column: shown as text, nothing runs.
    c.add_filter("id", "", "7")
    c.wait_info("Page 1 · 1 rows of 1 matching")
    check(c.column(1) == [XSS], "the payload is not shown as text: " + repr(c.column(1)))
    c.no_xss("table browser")
    c.clear_filters()
    c.open_table("<b>evil</b>")
    c.wait_info("Page 1 · 1 rows")
    headers = c.js("return [...document.querySelectorAll('#rows-grid th button')].map(b => b.textContent)")
    check('<img src=x onerror="window.__xss=2">' in headers, "the hostile column name: " + repr(headers))
    c.no_xss("hostile table and column names")
    step("XSS: a row, a table name and a column name holding HTML are shown as text; nothing ran")

    # A write token: edit a row and delete another.
    c.find("#token-button").click()
    c.enter_token(args.write)
    c.wait(lambda: c.role() == "write", "the write role")
    c.open_table("people")
    c.add_filter("id", "", "8")
    c.wait(lambda: len(c.finds("#rows-grid button.edit")) == 1, "the edit button")
    c.find("#rows-grid button.edit").click()
    c.wait(lambda: c.js("return document.getElementById('edit-dialog').open"), "the edit dialog")
    name = c.find("#edit-fields textarea[data-column=name]")
    name.clear()
    name.send_keys("Edited <i>name</i>")
    c.find("#edit-fields input[data-null=note]").click()
    c.find("#edit-save").click()
    c.wait(lambda: not c.js("return document.getElementById('edit-dialog').open"), "the edit dialog to close")
    c.wait(lambda: c.column(1) == ["Edited <i>name</i>"], "the edited name, have " + repr(c.column(1)))
    check(c.column(3) == ["NULL"], "the note set to NULL: " + repr(c.column(3)))
    c.clear_filters()
    c.add_filter("id", "", "23")
    c.wait(lambda: len(c.finds("#rows-grid button.delete")) == 1, "the delete button")
    c.find("#rows-grid button.delete").click()
    c.wait(lambda: c.js("return document.getElementById('confirm-dialog').open"), "the confirmation")
    c.find("#confirm-yes").click()
    c.wait_info("Page 1 · 0 rows of 0 matching")
    c.clear_filters()
    c.wait_info("Page 1 · 10 rows of 22 matching")
    step("write token: row 8 edited (name, note to NULL), row 23 deleted")

    # CSV export of the filtered rows (age > 30).
    c.add_filter("age", "__gt", "30")
    c.wait_info("Page 1 · 10 rows of 12 matching")
    target = os.path.join(args.downloads, "people.csv")
    if os.path.exists(target):
        os.remove(target)
    c.find("#export-csv").click()
    c.wait(lambda: os.path.exists(target) and os.path.getsize(target) > 0, "the CSV download")
    time.sleep(0.3)
    with open(target, newline="") as handle:
        lines = handle.read().split("\r\n")
    check(lines[0] == "id,name,age,note,big,score,photo", "CSV header: " + repr(lines[0]))
    check(lines[-1] == "" and len(lines) == 12 + 2, "CSV rows: " + repr(lines))
    c.clear_filters()
    step("CSV export: header and the 12 filtered rows")

    # The SQL editor: Ctrl+Enter, a grid with the declared types and the time; errors with their code.
    c.find("#tab-sql").click()
    editor = c.find("#sql-text")
    editor.clear()
    editor.send_keys("SELECT id, name, big FROM people WHERE id <= 3 ORDER BY id")
    editor.send_keys(Keys.CONTROL, Keys.ENTER)
    c.wait(lambda: "3 rows" in c.text("#sql-info"), "the query's result")
    check(" ms" in c.text("#sql-info"), "no time: " + c.text("#sql-info"))
    types = c.js("return [...document.querySelectorAll('#sql-grid th .type')].map(s => s.textContent)")
    check(types == ["INTEGER", "TEXT", "INTEGER"], "declared types: " + repr(types))
    cells = c.js("return [...document.querySelectorAll('#sql-grid tbody td')].map(td => td.textContent)")
    check(cells[-1] == "9223372036854775807", "big integer in the SQL grid: " + repr(cells))
    editor.clear()
    editor.send_keys("SELECT * FROM no_such_table")
    editor.send_keys(Keys.CONTROL, Keys.ENTER)
    c.wait(lambda: c.text("#sql-error .code") == "SQLITE_ERROR", "the error's code")
    check("no such table" in c.text("#sql-error"), "the error's message: " + c.text("#sql-error"))
    editor.clear()
    editor.send_keys("DELETE FROM people")
    c.find("#sql-run-query").click()
    c.wait(lambda: c.text("#sql-error .code") == "READONLY_STATEMENT", "READONLY_STATEMENT")
    editor.clear()
    editor.send_keys("SELECT name FROM people WHERE id = 7")
    editor.send_keys(Keys.CONTROL, Keys.ENTER)
    c.wait(lambda: "1 row" in c.text("#sql-info"), "the payload's row")
    check(c.js("return document.querySelector('#sql-grid tbody td').textContent") == XSS, "payload in the SQL grid")
    c.no_xss("SQL grid")
    editor.clear()
    editor.send_keys("UPDATE people SET age = age + 1 WHERE id = 1")
    c.find("#sql-run-update").click()
    c.wait(lambda: "1 changed" in c.text("#sql-info"), "the update's changes")
    step("SQL editor: grid with types, SQLITE_ERROR and READONLY_STATEMENT shown with their code, an update")

    # The status panel with an admin token: health, version, uptime, charts from /metrics.
    c.find("#token-button").click()
    c.enter_token(args.admin)
    c.wait(lambda: c.role() == "admin", "the admin role")
    c.find("#tab-status").click()
    c.wait(lambda: c.js("return document.querySelector('[data-fact=Status]')?.textContent") == "ok", "health ok")
    c.wait(lambda: c.js("return document.querySelector('[data-fact=Uptime]') !== null"), "the uptime")
    c.wait(lambda: c.js("return document.querySelector('[data-chart=rps] .now')?.textContent !== '–'"
                        " && document.querySelector('[data-chart=rps] .now') !== null"), "a second sample", 30)
    charts = c.js("return [...document.querySelectorAll('[data-chart]')].map(f => f.dataset.chart)")
    check(charts == ["rps", "p99", "connections", "wal", "group"], "charts: " + repr(charts))
    check(c.js("return document.querySelector('[data-chart=rps] polyline').getAttribute('points').length > 0"),
          "the requests chart has no line")
    step("status panel: health ok, version, uptime, five live charts")
    if args.screenshots:
        # A few more samples on the charts, with some requests of the page's own between them.
        for burst in [5, 30, 80, 40, 120, 60, 20]:
            c.js("for (let i = 0; i < arguments[0]; i++) fetch('/health')", burst)
            time.sleep(2)
        d.save_screenshot(os.path.join(args.screenshots, "console-status.png"))

    # Keyboard: the tabs follow the arrow keys; the SQL editor runs with Ctrl+Enter (above).
    c.find("#tab-status").send_keys(Keys.ARROW_RIGHT)
    c.wait(lambda: c.find("#tab-tables").get_attribute("aria-selected") == "true", "ArrowRight to the first tab")
    check(c.js("return document.activeElement.id") == "tab-tables", "focus did not follow the tab")
    step("keyboard: arrow keys move between the tabs")

    if args.screenshots:
        c.open_table("people")
        Select(c.find("#page-size")).select_by_visible_text("10")
        c.wait_info("Page 1 · 10 rows")
        d.save_screenshot(os.path.join(args.screenshots, "console-tables.png"))
        c.find("#tab-sql").click()
        editor = c.find("#sql-text")
        editor.clear()
        editor.send_keys("SELECT id, name, age, big FROM people WHERE age > 30 ORDER BY age DESC LIMIT 8")
        editor.send_keys(Keys.CONTROL, Keys.ENTER)
        c.wait(lambda: "8 rows" in c.text("#sql-info"), "the screenshot's query")
        d.save_screenshot(os.path.join(args.screenshots, "console-sql.png"))
        c.find("#tab-tables").click()

    # A phone's width: nothing wider than the screen but the grid, which scrolls in its own box.
    d.set_window_size(390, 844)
    c.open_table("people")
    c.wait_info("Page 1")
    wide = c.js("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
    check(wide <= 1, "the page is wider than a phone by " + str(wide) + " px")
    if args.screenshots:
        d.save_screenshot(os.path.join(args.screenshots, "console-phone.png"))
    step("phone width (390 px): no horizontal overflow")

    # The console off: /ui is the API's 404.
    d.get(args.off_url + "/ui")
    c.wait(lambda: "NOT_FOUND" in d.page_source, "the 404 of a server with the console off")
    check(not c.finds("#token-dialog"), "the console is served while off")
    step("console off: /ui is 404 NOT_FOUND")


if __name__ == "__main__":
    main()
