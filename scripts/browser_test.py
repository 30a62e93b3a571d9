"""Drives headless Chromium through the pages of `cbir serve` (see browser-test.sh).

Arguments: BASE PROBE OUT LEAST_PEOPLE PHOTO FACES SPLIT LONE WORK: the server's address, a photo of Obama to search
with, where the screenshots go, how many people the people page must show at least, a photo whose page must box
FACES faces, the person a face of the largest person was split off into (which that person's page must suggest
merging back), 1 where a face in no person must be suggested there too (else 0), and the scratch folder (photos/
holds the photos, "biden copy.jpg" a copy of train/biden/biden.jpg; xdg/Trash is the server's trash)."""
import json
import os
import sys
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as shown
from selenium.webdriver.support.ui import WebDriverWait

base, probe, out = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
least_people, framed_photo, framed_faces = int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
split_person, lone_faces, work = sys.argv[7], int(sys.argv[8]), sys.argv[9]
options = webdriver.ChromeOptions()
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,900", "--hide-scrollbars"]:
    options.add_argument(argument)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
browser = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
wait = WebDriverWait(browser, 20)
checked = []


def check(condition, what):
    if not condition:
        browser.save_screenshot(os.path.join(out, "failed.png"))
        sys.exit(f"browser-test: {what} (on {browser.current_url}; failed.png saved)")
    checked.append(what)


def visit(path, screenshot):
    """Loads a page, waits for its images, and checks that every image shows and the browser said nothing wrong."""
    browser.get(base + path) if path else None
    wait.until(lambda b: b.execute_script("return document.readyState") == "complete")
    wait.until(lambda b: b.execute_script(
        "return [...document.images].every(i => i.complete)"))
    broken = browser.execute_script(
        "return [...document.images].filter(i => i.naturalWidth === 0).map(i => i.src)")
    check(not broken, f"every image of {browser.current_url} shows ({broken})")
    problems = [entry["message"] for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]
    check(not problems, f"the browser reports nothing wrong on {browser.current_url} ({problems})")
    browser.save_screenshot(os.path.join(out, screenshot))


def text():
    return browser.find_element(By.TAG_NAME, "main").text


images = json.load(urllib.request.urlopen(base + "/api/stats"))["images"]
try:
    visit("/", "people.png")
    check(browser.current_url.endswith("/people"), "/ leads to the people")
    cards = browser.find_elements(By.CSS_SELECTOR, ".people .card a")
    check(len(cards) >= least_people, f"the people page shows {least_people} people at least ({len(cards)})")
    cards[0].click()
    visit(None, "person-before.png")
    field = browser.find_element(By.NAME, "name")
    field.clear()
    field.send_keys("Barack Obama")
    field.submit()
    wait.until(shown.text_to_be_present_in_element((By.TAG_NAME, "h1"), "Barack Obama"))
    visit(None, "person.png")
    check(len(browser.find_elements(By.CSS_SELECTOR, ".faces .card")) >= 5, "the person's faces show")

    def own_faces():
        return len(browser.find_elements(By.CSS_SELECTOR, "ul.faces .card"))

    def click_and_reload(button, screenshot):
        button.click()
        # Mid-reload, Chromium may answer a question about the old button with an inspector error rather than
        # "stale": asked again, it says stale once the new page is in.
        reloading = WebDriverWait(browser, 30, ignored_exceptions=[WebDriverException])
        reloading.until(shown.staleness_of(button))
        visit(None, screenshot)

    split = f".suggested .card:has(a[href='/people/{split_person}'])"
    suggested = browser.find_elements(By.CSS_SELECTOR, split)
    check(suggested and "Maybe the same person" in text(), "the person page suggests the face split off from it")
    before = own_faces()
    click_and_reload(suggested[0].find_element(By.TAG_NAME, "button"), "person-merged.png")
    check(own_faces() == before + 1 and not browser.find_elements(By.CSS_SELECTOR, split),
          f"one click merges the suggested person back ({before} faces, then {own_faces()})")
    lone = browser.find_elements(By.CSS_SELECTOR, ".suggested form[data-api^='/api/faces/'] button")
    check(len(lone) >= lone_faces, "the person page suggests the face in no person nearest to it")
    if lone_faces:
        before = own_faces()
        click_and_reload(lone[0], "person-assigned.png")
        check(own_faces() == before + 1, f"one click adds the suggested face ({before} faces, then {own_faces()})")

    visit("/people", "people-named.png")
    check("Barack Obama" in text(), "the people page shows the new name")

    visit("/photos", "photos.png")
    check(f"{images} photos" in text(), "the photos page counts every photo")
    browser.find_element(By.PARTIAL_LINK_TEXT, framed_photo).click()
    visit(None, "photo.png")
    boxes = browser.find_elements(By.CSS_SELECTOR, ".framed rect")
    check(len(boxes) == framed_faces, f"{framed_photo} has its {framed_faces} faces boxed ({len(boxes)})")
    check("Similar photos" in text(), "the photo page lists similar photos")

    visit("/duplicates", "duplicates.png")
    check("the best copy" in text() and "biden copy.jpg" in text(), "the copy of a photo is grouped with it")
    original, copy = f"{work}/photos/train/biden/biden.jpg", f"{work}/photos/biden copy.jpg"
    trashed = f"{work}/xdg/Trash/files/biden.jpg"
    with open(original, "rb") as file:
        before = file.read()
    # The copy kept instead of the original, every other group left alone: the confirmation counts the others.
    moving = 0
    for group in browser.find_elements(By.CSS_SELECTOR, "section.group"):
        card = group.find_elements(By.XPATH, ".//li[.//span[@class='name' and text()='biden copy.jpg']]")
        if card:
            card[0].find_element(By.CSS_SELECTOR, "input[type=radio]").click()
            moving = len(group.find_elements(By.CSS_SELECTOR, "input[type=radio]")) - 1
        else:
            group.find_element(By.CSS_SELECTOR, "input[data-leave]").click()
    files = "1 file" if moving == 1 else f"{moving} files"
    browser.find_element(By.CSS_SELECTOR, "form[data-cleanup] button").click()
    confirmation = wait.until(shown.alert_is_present())
    said = confirmation.text
    confirmation.accept() if said.startswith(f"Move {files} ") else confirmation.dismiss()
    check(said.startswith(f"Move {files} "), f"the confirmation counts the files ({said})")
    wait.until(shown.url_contains("/duplicates/runs"))
    visit(None, "cleanup-runs.png")
    check(f"{moving} cop" in text() and "in the trash" in text(), f"the run is listed ({text()})")
    check(not os.path.exists(original) and os.path.exists(copy) and os.path.exists(trashed)
          and os.path.exists(f"{work}/xdg/Trash/info/biden.jpg.trashinfo"),
          "the original is in the trash with its .trashinfo, the copy kept")
    visit("/photos", "photos-cleaned.png")
    check(f"{images - moving} photos" in text(), "the photos moved leave the photos page")
    visit("/duplicates/runs", "cleanup-runs-before-undo.png")
    click_and_reload(browser.find_element(By.CSS_SELECTOR, "form[data-undo] button"), "cleanup-undone.png")
    check("undone" in text() and not os.listdir(f"{work}/xdg/Trash/files"), f"the undo empties the trash ({text()})")
    with open(original, "rb") as file:
        check(file.read() == before, "the undo puts the original back, byte for byte")
    visit("/duplicates", "duplicates-again.png")
    check("biden copy.jpg" in text(), "the group is back after the undo")

    visit("/search", "search-form.png")
    browser.find_element(By.CSS_SELECTOR, "input[type=file]").send_keys(probe)
    browser.find_element(By.CSS_SELECTOR, "form.upload button").click()
    wait.until(shown.presence_of_element_located((By.CSS_SELECTOR, "table.faces-found")))
    visit(None, "search.png")
    row = browser.find_element(By.CSS_SELECTOR, "table.faces-found tbody tr").text
    check("Barack Obama" in row and ("sure" in row or "likely" in row), f"the upload's face is named ({row})")

    visit("/status", "status.png")
    check("Last indexing run" in text() and str(images) in text(), "the status page shows the counts and the last run")
finally:
    browser.quit()
print(f"browser-test: {len(checked)} checks passed; screenshots in {out}")
