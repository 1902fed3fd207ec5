/* The hits desk tells of a new hit without a person watching it: a short sound (a toggle turns it off,
   remembered in this browser), the number of new hits in the tab's title until the desk is looked at, and
   a browser notification where the person allowed them. Its words come from its own <script> tag's
   data-* attributes (the desk template, in the person's language). It only reads the desk's rows
   (tr[id^="hit-"] of #open-hits-section, which workspace.js swaps in every few seconds). */
(function () {
  "use strict";

  var script = document.currentScript;
  var section = document.getElementById("open-hits-section");
  if (!section || !script) return;
  var words = script.dataset;
  var STORE = "progressivo.desk.sound";
  var baseTitle = document.title;
  var unseen = 0;
  var audio = null;

  function rowIds() {
    return new Set(Array.prototype.map.call(section.querySelectorAll('tr[id^="hit-"]'), function (row) {
      return row.id;
    }));
  }

  var known = rowIds();

  function soundOn() {
    try { return window.localStorage.getItem(STORE) !== "off"; } catch (e) { return true; }
  }

  // Two short tones from Web Audio: no file to fetch. A browser lets a page sound only after a person
  // used it, so the context is made (or resumed) at the first click or key.
  function chime() {
    if (!audio || !soundOn()) return;
    [880, 1320].forEach(function (pitch, index) {
      var tone = audio.createOscillator();
      var gain = audio.createGain();
      var start = audio.currentTime + index * 0.18;
      tone.frequency.value = pitch;
      gain.gain.setValueAtTime(0.2, start);
      gain.gain.exponentialRampToValueAtTime(0.001, start + 0.16);
      tone.connect(gain).connect(audio.destination);
      tone.start(start);
      tone.stop(start + 0.17);
    });
  }

  function wakeAudio() {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!audio && Context) audio = new Context();
    if (audio && audio.state === "suspended") audio.resume();
  }

  function titleShow() {
    document.title = unseen ? "(" + unseen + ") " + baseTitle : baseTitle;
  }

  function seen() {
    if (document.visibilityState === "visible" && document.hasFocus()) {
      unseen = 0;
      titleShow();
    }
  }

  function notify(rows) {
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    var lines = rows.map(function (row) {
      var cells = row.querySelectorAll("td");
      return cells.length > 4 ? cells[1].textContent.trim() + " · " + cells[4].textContent.trim() : row.id;
    });
    new Notification(words.newHit, { body: lines.join("\n"), tag: "progressivo-desk" });
  }

  function rowsChanged() {
    var now = rowIds();
    var fresh = [];
    now.forEach(function (id) { if (!known.has(id)) fresh.push(document.getElementById(id)); });
    known = now;
    if (!fresh.length) return;
    unseen += fresh.length;
    titleShow();
    chime();
    notify(fresh.filter(Boolean));
    section.dataset.newHits = String(unseen);
  }

  // The toggle, just before the desk (outside the part the refresh replaces): sound on or off, and the
  // browser's notification permission asked at the person's own click (browsers refuse to ask otherwise).
  var toggle = document.createElement("button");
  toggle.type = "button";
  toggle.className = "button secondary desk-sound";
  toggle.id = "desk-sound";
  function toggleShow() {
    var on = soundOn();
    toggle.textContent = on ? words.soundOn : words.soundOff;
    toggle.setAttribute("aria-pressed", on ? "true" : "false");
  }
  toggle.addEventListener("click", function () {
    try { window.localStorage.setItem(STORE, soundOn() ? "off" : "on"); } catch (e) { /* private mode */ }
    toggleShow();
    if ("Notification" in window && Notification.permission === "default") Notification.requestPermission();
  });
  toggleShow();
  section.parentNode.insertBefore(toggle, section);

  new MutationObserver(rowsChanged).observe(section, { childList: true, subtree: true });
  ["click", "keydown"].forEach(function (kind) { document.addEventListener(kind, wakeAudio, true); });
  document.addEventListener("visibilitychange", seen);
  window.addEventListener("focus", seen);
})();
