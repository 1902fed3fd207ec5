/* Progressivo sign. Speaks the websocket protocol of API.md "Signage".
   Money is integer cents throughout: amounts arrive as "1523.47" strings, are parsed into whole cents,
   counted up in whole cents and formatted from whole cents. No floating-point money.
   A screen in a venue whose currency is not the pool's gets each amount as `amount` (integer minor
   units) with its `currency` as well: the sign shows that one. */
(function () {
  "use strict";

  var config = JSON.parse(document.getElementById("sign-config").textContent);
  var COUNT_UP_MS = 1000;          // a new value is reached within a second of arriving
  var WIN_MS = 30000;              // rule 7: WIN with machine and amount, 30 s
  var ALTERNATE_MS = 2500;         // rule 5: a faulted link alternates amount and warning
  var OFFLINE_WARN_MS = 10000;     // disconnected this long: amounts may be stale, say so
  var WATCHDOG_MS = Math.max(12000, config.heartbeat_seconds * 3000);

  var signEl = document.getElementById("sign");
  var listEl = document.getElementById("jackpots");
  var statusEl = document.getElementById("status");
  var levels = new Map();          // level id -> {seq, from, shown, target, start, el, progressive}
  var jackpots = new Map();        // progressive id -> {el, link}
  var wins = [];
  var winTimer = null;
  var socket = null;
  var attempt = 0;
  var lastFrameAt = 0;
  var offlineSince = null;
  var SYMBOLS = { EUR: "€", CHF: "CHF", USD: "$", GBP: "£" };

  function parseCents(eur) {
    var text = String(eur);
    var negative = text.charAt(0) === "-";
    if (negative) text = text.slice(1);
    var parts = text.split(".");
    var cents = parseInt(parts[0], 10) * 100 + parseInt(((parts[1] || "") + "00").slice(0, 2), 10);
    return negative ? -cents : cents;
  }

  // The amount a frame carries for this screen: in the venue's currency when the server converted it,
  // else the API's `amount_eur` string in the pool's currency.
  function money(item, field, poolCurrency) {
    if (item.currency !== undefined && item[field] !== undefined) {
      return { cents: item[field], currency: item.currency };
    }
    return { cents: parseCents(item[field + "_eur"]), currency: poolCurrency };
  }

  function formatMoney(cents, currency) {
    var negative = cents < 0;
    var abs = negative ? -cents : cents;
    var rest = abs % 100;
    var whole = String((abs - rest) / 100);
    var grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ".");
    var symbol = SYMBOLS[currency] || currency;
    return (negative ? "-" : "") + symbol + " " + grouped + "," + (rest < 10 ? "0" : "") + rest;
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function layout() {
    // Fit the cards to the screen: as large as the tallest card and the longest amount allow.
    var count = jackpots.size || 1;
    var portrait = window.innerHeight > window.innerWidth;
    var columns = portrait ? (count <= 5 ? 1 : 2) : (count === 1 ? 1 : count <= 4 ? 2 : 3);
    var rows = Math.ceil(count / columns);
    var mostLevels = 1;
    var longest = 8;
    jackpots.forEach(function (j) { mostLevels = Math.max(mostLevels, j.levelCount); });
    levels.forEach(function (level) { longest = Math.max(longest, formatMoney(level.target, level.currency).length + 1); });
    listEl.style.setProperty("--columns", columns);
    var vmin = Math.min(window.innerWidth, window.innerHeight) / 100;
    var gap = 2.5 * vmin;
    var cardHeight = (listEl.clientHeight - gap * (rows - 1)) / rows / vmin;
    var cardWidth = (listEl.clientWidth - gap * (columns - 1)) / columns / vmin;
    var heightNeeded = 22 + 5.2 * (mostLevels - 1);   // name, top amount, other levels, padding (scale 1)
    var widthNeeded = longest * 0.62 * 9 + 8;          // the top amount's digits at 9vmin, padding
    var scale = Math.min(1.6, Math.max(0.4, Math.min(cardHeight / heightNeeded, cardWidth / widthNeeded)));
    listEl.style.setProperty("--scale", scale.toFixed(3));
  }

  function renderSnapshot(list) {
    levels.clear();
    jackpots.clear();
    listEl.textContent = "";
    list.forEach(function (jackpot) {
      var card = el("article", "jackpot");
      card.dataset.jackpotId = jackpot.id;
      card.appendChild(el("div", "jackpot-name", jackpot.name));
      jackpot.levels.forEach(function (level, index) {
        var row = el("div", index === 0 ? "level top" : "level");
        row.appendChild(el("span", "level-name", level.name));
        var amount = el("span", "amount");
        amount.dataset.levelId = level.id;
        row.appendChild(amount);
        row.appendChild(el("span", "warning", "Collegamento interrotto · Link down"));
        card.appendChild(row);
        var shown = money(level, "amount", jackpot.currency);
        var cents = shown.cents;
        levels.set(level.id, {
          seq: level.seq, from: cents, shown: cents, target: cents, start: 0, el: amount, progressive: jackpot.id,
          currency: shown.currency, poolCurrency: jackpot.currency
        });
        amount.dataset.amountEur = level.amount_eur;
        amount.dataset.currency = shown.currency;
        amount.textContent = formatMoney(cents, shown.currency);
      });
      listEl.appendChild(card);
      jackpots.set(jackpot.id, { el: card, link: jackpot.link, levelCount: jackpot.levels.length });
      setLink(jackpot.id, jackpot.link);
    });
    layout();
  }

  function applyUpdate(update, now) {
    var level = levels.get(update.id);
    if (!level || update.seq <= level.seq) return;  // a screen ignores a seq lower than one it has shown
    level.seq = update.seq;
    var received = money(update, "amount", level.poolCurrency);
    var cents = received.cents;
    level.el.dataset.amountEur = update.amount_eur;
    if (cents < level.shown || received.currency !== level.currency) {
      // A win, a correction or a change of currency: the new amount is shown at once, never counted down.
      level.currency = received.currency;
      level.el.dataset.currency = level.currency;
      level.from = level.shown = level.target = cents;
      level.el.textContent = formatMoney(cents, level.currency);
      return;
    }
    level.from = level.shown;
    level.target = cents;
    level.start = now;
  }

  function tick(now) {
    levels.forEach(function (level) {
      if (level.shown >= level.target) return;
      var elapsed = Math.min(COUNT_UP_MS, Math.max(0, Math.round(now - level.start)));
      // Integer cents: from + floor(span * elapsed / duration), never past the target.
      var next = level.from + Math.floor(((level.target - level.from) * elapsed) / COUNT_UP_MS);
      if (next > level.target) next = level.target;
      if (next !== level.shown) {
        level.shown = next;
        level.el.textContent = formatMoney(next, level.currency);
      }
    });
    window.requestAnimationFrame(tick);
  }

  function setLink(jackpotId, state) {
    var jackpot = jackpots.get(jackpotId);
    if (!jackpot) return;
    jackpot.link = state;
    jackpot.el.classList.toggle("down", state === "down" || offlineTooLong());
  }

  function offlineTooLong() {
    return offlineSince !== null && Date.now() - offlineSince >= OFFLINE_WARN_MS;
  }

  function refreshLinks() {
    jackpots.forEach(function (jackpot, id) { setLink(id, jackpot.link); });
  }

  function showNextWin() {
    var box = document.getElementById("win");
    if (!wins.length) { box.hidden = true; winTimer = null; return; }
    var hit = wins.shift();
    var level = levels.get(hit.level);
    var jackpot = level && jackpots.get(level.progressive);
    var levelName = level ? level.el.parentNode.querySelector(".level-name").textContent : "";
    var jackpotName = jackpot ? jackpot.el.querySelector(".jackpot-name").textContent : "";
    document.getElementById("win-level").textContent = [jackpotName, levelName].filter(Boolean).join(" · ");
    var won = money(hit, "amount", level ? level.poolCurrency : "EUR");
    document.getElementById("win-amount").textContent = formatMoney(won.cents, won.currency);
    document.getElementById("win-machine").textContent = hit.machine || "";
    box.hidden = false;
    winTimer = window.setTimeout(showNextWin, WIN_MS);
  }

  function onFrame(frame) {
    lastFrameAt = Date.now();
    var now = window.performance.now();
    if (frame.type === "snapshot") {
      attempt = 0;
      offlineSince = null;
      renderSnapshot(frame.jackpots);
      setState("live", "In diretta");
    } else if (frame.type === "update") {
      frame.levels.forEach(function (update) { applyUpdate(update, now); });
    } else if (frame.type === "hit") {
      wins.push(frame);
      if (!winTimer) showNextWin();
    } else if (frame.type === "link") {
      setLink(frame.jackpot, frame.state);
    }
  }

  function setState(state, text) {
    signEl.dataset.state = state;
    statusEl.textContent = text;
  }

  function connect() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var url = scheme + window.location.host + config.socket_path + "?token=" + encodeURIComponent(config.token);
    socket = new WebSocket(url);
    socket.onmessage = function (event) { onFrame(JSON.parse(event.data)); };
    socket.onclose = function (event) {
      socket = null;
      if (offlineSince === null) offlineSince = Date.now();
      var delay;
      if (event.code === 4401) {
        setState("refused", "Schermo non autorizzato");
        delay = 60000;
      } else {
        // Exponential back-off with jitter, so a restarted server is not hit by every sign at once.
        delay = Math.min(30000, 1000 * Math.pow(2, attempt)) * (0.5 + Math.random() / 2);
        attempt += 1;
        setState("offline", "Collegamento in ripristino…");
      }
      window.setTimeout(connect, delay);
    };
    lastFrameAt = Date.now();
  }

  window.setInterval(function () {
    // Silence past a few heartbeats means a dead connection the browser has not noticed.
    if (socket && socket.readyState === WebSocket.OPEN && Date.now() - lastFrameAt > WATCHDOG_MS) socket.close();
    refreshLinks();
    var clock = new Date();
    document.getElementById("clock").textContent =
      String(clock.getHours()).padStart(2, "0") + ":" + String(clock.getMinutes()).padStart(2, "0");
  }, 1000);

  window.setInterval(function () {
    jackpots.forEach(function (jackpot) { jackpot.el.classList.toggle("show-warning"); });
  }, ALTERNATE_MS);

  window.addEventListener("resize", layout);
  window.requestAnimationFrame(tick);
  connect();
})();
