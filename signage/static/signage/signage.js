/* Progressivo sign. Speaks the websocket protocol of API.md "Signage" (plus the `theme`,
   `declaration` and `pending` frames).
   Money is integer cents throughout: amounts arrive as "1523.47" strings, are parsed into whole cents,
   counted up in whole cents and formatted from whole cents. No floating-point money.
   A screen in a venue whose currency is not the pool's gets each amount as `amount` (integer minor
   units) with its `currency` as well: the sign shows that one.
   Words and number formats are the screen's language (config.locale, config.strings); so are the rules
   lines (each progressive's `rules` carries them in every language; the `rules` frame brings new ones). */
(function () {
  "use strict";

  var config = JSON.parse(document.getElementById("sign-config").textContent);
  var strings = config.strings;
  var COUNT_UP_MS = 1000;          // a new value is reached within a second of arriving
  var WIN_MS = 30000;              // rule 7: WIN with machine and amount, 30 s
  var ALTERNATE_MS = 2500;         // rule 5: a faulted link alternates amount and warning
  var OFFLINE_WARN_MS = 10000;     // disconnected this long: amounts may be stale, say so
  var WATCHDOG_MS = Math.max(12000, config.heartbeat_seconds * 3000);
  var ATTRACT_MS = config.attract_seconds * 1000;
  var FIT_SLACK = 0.96;            // room left in a box for an amount that grows by a digit
  var RULES_MS = (config.rules_seconds || 6) * 1000;  // each rules line stays this long
  var THEME_COLORS = ["background", "background-deep", "accent", "accent-light", "accent-dark", "text"];

  var signEl = document.getElementById("sign");
  var listEl = document.getElementById("jackpots");
  var statusEl = document.getElementById("status");
  var rulesEl = document.getElementById("rules");
  var rulesAt = 0;                 // the rules line shown, an index into rulesList()
  var levels = new Map();          // level id -> {seq, from, shown, target, start, el, progressive, ...}
  var jackpots = new Map();        // progressive id -> {el, link, theme, data}
  var declarations = new Map();    // progressive id -> its pending declaration frame
  var pendings = new Set();        // progressive ids whose jackpot a wide-area link is deciding
  var order = [];                  // progressive ids, the hero first
  var wins = [];
  var winTimer = null;
  var socket = null;
  var attempt = 0;
  var lastFrameAt = 0;
  var lastChangeAt = Date.now();
  var offlineSince = null;
  var connection = "connecting";
  var refit = new Set();
  var SYMBOLS = { EUR: "€", USD: "$", GBP: "£" };
  var SEPARATORS = { it: { group: ".", decimal: "," }, en: { group: ",", decimal: "." } };

  function parseCents(eur) {
    var text = String(eur);
    var negative = text.charAt(0) === "-";
    if (negative) text = text.slice(1);
    var parts = text.split(".");
    var cents = parseInt(parts[0], 10) * 100 + parseInt(((parts[1] || "") + "00").slice(0, 2), 10);
    return negative ? -cents : cents;
  }

  // The amount a frame carries for this screen: in the venue's currency when the server converted it,
  // else the API's `<field>_eur` string in the pool's currency.
  function money(item, field, poolCurrency) {
    if (item.currency !== undefined && item[field] !== undefined) {
      return { cents: item[field], currency: item.currency };
    }
    return { cents: parseCents(item[field + "_eur"]), currency: poolCurrency };
  }

  // Italian: "1.000,00 €"; English: "€1,000.00" (a currency without a symbol: "CHF 1,000.00").
  function formatMoney(cents, currency) {
    var sep = SEPARATORS[config.locale] || SEPARATORS.it;
    var negative = cents < 0;
    var abs = negative ? -cents : cents;
    var rest = abs % 100;
    var whole = String((abs - rest) / 100).replace(/\B(?=(\d{3})+(?!\d))/g, sep.group);
    var number = (negative ? "-" : "") + whole + sep.decimal + (rest < 10 ? "0" : "") + rest;
    var symbol = SYMBOLS[currency];
    if (config.locale === "en") return symbol ? symbol + number : currency + " " + number;
    return number + " " + (symbol || currency);
  }

  // The venue's wall clock (config.time_zone), whatever zone the display PC was installed with.
  var clockFormat = new Intl.DateTimeFormat("en-GB", {
    hour: "2-digit", minute: "2-digit", hour12: false, timeZone: config.time_zone || undefined,
  });

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function changed() {
    lastChangeAt = Date.now();
    delete signEl.dataset.attract;
  }

  // --- layout: the hero card (the screen's largest prize) and the rest in rows, no cell left empty ---

  function rowsFor(others, portrait) {
    if (others === 0) return [];
    var perRow;
    if (portrait) perRow = others <= 3 ? 1 : 2;
    else if (others <= 3) perRow = 1;   // beside the hero, one above the other
    else perRow = others <= 4 ? others : others <= 6 ? 3 : 4;
    var rows = [];
    for (var left = others; left > 0; left -= perRow) rows.push(Math.min(perRow, left));
    return rows;
  }

  function arrange() {
    var portrait = window.innerHeight > window.innerWidth;
    var others = Math.max(0, order.length - 1);
    var side = !portrait && others >= 1 && others <= 3;
    listEl.dataset.layout = others === 0 ? "solo" : side ? "side" : "stack";
    listEl.dataset.others = String(others);
    listEl.textContent = "";
    if (!order.length) return;
    var heroArea = el("div", "hero-area");
    heroArea.appendChild(jackpots.get(order[0]).el);
    listEl.appendChild(heroArea);
    if (others === 0) { fitAll(); return; }
    var rest = el("div", "rest-area");
    var next = 1;
    rowsFor(others, portrait).forEach(function (count) {
      var row = el("div", "row");
      for (var i = 0; i < count; i += 1) row.appendChild(jackpots.get(order[next++]).el);
      rest.appendChild(row);
    });
    listEl.appendChild(rest);
    fitAll();
  }

  // --- fitting text to its box: the largest font size at which no line is wider than its box and the
  // card's content is no taller than the card ---

  function fits(box) {
    if (box.scrollHeight > box.clientHeight + 1) return false;
    var lines = box.querySelectorAll(".line");
    for (var i = 0; i < lines.length; i += 1) {
      if (lines[i].scrollWidth > lines[i].clientWidth + 1) return false;
    }
    return true;
  }

  // ``cap``: the largest size allowed (the hero's), so no other card's amount outgrows the hero's.
  function fit(box, cap) {
    var low = 4;
    var high = Math.max(8, Math.floor(box.clientHeight / 2));
    if (cap) high = Math.min(high, cap + 1);
    while (high - low > 1) {
      var middle = Math.floor((low + high) / 2);
      box.style.fontSize = middle + "px";
      if (fits(box)) low = middle; else high = middle;
    }
    box.style.fontSize = Math.max(4, Math.floor(low * FIT_SLACK)) + "px";
  }

  function heroSize() {
    return order.length ? parseFloat(jackpots.get(order[0]).el.style.fontSize) : 0;
  }

  function fitCard(id) {
    var jackpot = jackpots.get(id);
    if (!jackpot) return;
    fit(jackpot.el, id === order[0] ? 0 : heroSize());
  }

  function fitAll() {
    order.forEach(fitCard);  // the hero first: it caps the others
    refit.clear();
  }

  // --- cards ---

  function levelLabel(level, title) {
    var name = level.name;
    if (level.mystery && /^must\s*hit\s*by\b/i.test(name)) name = strings.mystery;
    return name.trim().toLowerCase() === title.trim().toLowerCase() ? "" : name;
  }

  function teaserText(level, poolCurrency) {
    if (!level.mystery || level.must_hit_by_eur === undefined) return "";
    var limit = money(level, "must_hit_by", poolCurrency);
    return strings.must_hit_by.replace("%(amount)s", formatMoney(limit.cents, limit.currency));
  }

  function levelBlock(level, index, jackpot, title) {
    var top = index === 0;
    var block = el("div", top ? "level top" : "level");
    block.dataset.levelId = level.id;
    var label = levelLabel(level, title);
    var slot = el("div", "slot");
    var amount = el("span", "amount");
    amount.dataset.levelId = level.id;
    slot.appendChild(amount);
    slot.appendChild(el("span", "warning", strings.link_down));
    slot.appendChild(el("span", "suspended", strings.suspended));
    block.dataset.state = level.state || "active";
    if (top) {
      if (label) block.appendChild(el("div", "level-name line", label));
      slot.classList.add("line");
      block.appendChild(slot);
    } else {
      var row = el("div", "level-row line");
      row.appendChild(el("span", "level-name", label));
      row.appendChild(slot);
      block.appendChild(row);
    }
    var teaser = teaserText(level, jackpot.currency);
    if (teaser) block.appendChild(el("div", "teaser line", teaser));
    var shown = money(level, "amount", jackpot.currency);
    levels.set(level.id, {
      seq: level.seq, from: shown.cents, shown: shown.cents, target: shown.cents, start: 0, el: amount,
      progressive: jackpot.id, currency: shown.currency, poolCurrency: jackpot.currency, label: label,
      length: 0, block: block
    });
    amount.dataset.amountEur = level.amount_eur;
    amount.dataset.currency = shown.currency;
    show(levels.get(level.id), shown.cents);
    return block;
  }

  function show(level, cents) {
    var text = formatMoney(cents, level.currency);
    level.shown = cents;
    level.el.textContent = text;
    if (text.length !== level.length) {
      // One more digit (or one less): this card's text is fitted again on the next frame.
      if (level.length) refit.add(level.progressive);
      level.length = text.length;
    }
  }

  function cardHead(card, theme) {
    var head = el("header", "jackpot-head line");
    if (theme.logo) {
      var logo = el("img", "logo");
      logo.alt = "";
      logo.src = theme.logo;
      head.appendChild(logo);
    }
    head.appendChild(el("span", "jackpot-name", theme.title));
    var old = card.querySelector(".jackpot-head");
    if (old) card.replaceChild(head, old); else card.insertBefore(head, card.firstChild);
  }

  function themeApply(card, theme) {
    var colors = theme.colors || {};
    Object.keys(colors).forEach(function (name) {
      card.style.setProperty("--" + name.replace(/_/g, "-"), colors[name]);
    });
    card.dataset.preset = theme.preset;
    cardHead(card, theme);
  }

  function cardBuild(jackpot) {
    var card = el("article", "jackpot");
    card.dataset.jackpotId = jackpot.id;
    var theme = jackpot.theme || { title: jackpot.name, colors: {}, preset: "classic", logo: null };
    themeApply(card, theme);
    var list = el("div", "levels");
    jackpot.levels.forEach(function (level, index) {
      list.appendChild(levelBlock(level, index, jackpot, theme.title));
    });
    card.appendChild(list);
    return card;
  }

  function largestCents(jackpot) {
    return jackpot.levels.reduce(function (most, level) {
      return Math.max(most, money(level, "amount", jackpot.currency).cents);
    }, 0);
  }

  function renderSnapshot(list) {
    levels.clear();
    jackpots.clear();
    list.forEach(function (jackpot) {
      jackpots.set(jackpot.id, { el: cardBuild(jackpot), link: jackpot.link, data: jackpot });
    });
    // The hero is the largest prize; the others keep the server's order. Stable until the next snapshot.
    var hero = list.reduce(function (best, jackpot) {
      return best === null || largestCents(jackpot) > largestCents(best) ? jackpot : best;
    }, null);
    order = list.map(function (jackpot) { return jackpot.id; });
    if (hero) {
      order.splice(order.indexOf(hero.id), 1);
      order.unshift(hero.id);
      jackpots.get(hero.id).el.classList.add("hero");
    }
    jackpots.forEach(function (jackpot, id) { setLink(id, jackpot.link); });
    rulesAt = 0;
    rulesShow();  // before the cards are fitted: the line takes its height from them
    arrange();
  }

  // The colours of a progressive's card on another box (the WIN, the rules line).
  function themeCopy(box, jackpot) {
    THEME_COLORS.forEach(function (name) {
      box.style.setProperty("--" + name, jackpot.el.style.getPropertyValue("--" + name));
    });
  }

  // --- the rules the player is told: every line of every progressive in turn (the hero's first), in the
  // screen's language, each in its progressive's colours ---

  function rulesList() {
    var all = [];
    order.forEach(function (id) {
      var rules = (jackpots.get(id).data.rules || {})[config.locale] || [];
      rules.forEach(function (text) { all.push({ id: id, text: text }); });
    });
    return all;
  }

  // A line wider than the screen is set smaller until it fits: never wrapped, never cut.
  function rulesFit() {
    rulesEl.style.fontSize = "";
    for (var i = 0; i < 4 && rulesEl.scrollWidth > rulesEl.clientWidth + 1; i += 1) {
      var size = parseFloat(window.getComputedStyle(rulesEl).fontSize);
      rulesEl.style.fontSize = Math.floor(size * (rulesEl.clientWidth / rulesEl.scrollWidth) * 0.98 * 10) / 10 + "px";
    }
  }

  // Returns whether the line appeared or went (the cards then have another height to fit).
  function rulesShow() {
    var all = rulesList();
    var wasHidden = rulesEl.hidden;
    if (!all.length) {
      rulesEl.hidden = true;
      return !wasHidden;
    }
    if (rulesAt >= all.length) rulesAt = 0;
    var line = all[rulesAt];
    var jackpot = jackpots.get(line.id);
    themeCopy(rulesEl, jackpot);
    rulesEl.querySelector(".rules-name").textContent = jackpot.el.querySelector(".jackpot-name").textContent;
    rulesEl.querySelector(".rules-text").textContent = line.text;
    rulesEl.hidden = false;
    rulesFit();
    return wasHidden;
  }

  function rulesReceived(frame) {
    var jackpot = jackpots.get(frame.jackpot);
    if (!jackpot) return;
    jackpot.data.rules = frame.rules;
    if (rulesShow()) fitAll();
  }

  function themeReceived(frame) {
    var jackpot = jackpots.get(frame.jackpot);
    if (!jackpot) return;
    jackpot.data.theme = frame.theme;
    themeApply(jackpot.el, frame.theme);
    rulesShow();
    if (frame.jackpot === order[0]) fitAll(); else fitCard(frame.jackpot);
    changed();
  }

  // A level suspended or resumed while the sign is up: the word or the amount, at once; a retired level
  // leaves the card (the next snapshot no longer has it).
  function stateApply(level, update) {
    if (update.state === undefined || update.state === level.block.dataset.state) return;
    if (update.state === "retired") {
      level.block.remove();
      levels.delete(update.id);
    } else {
      level.block.dataset.state = update.state;
    }
    refit.add(level.progressive);
    changed();
  }

  // A Royal or Straight Flush declared at a table of the link: the card says so, in the card's colours,
  // until the frame saying it is released comes (or a snapshot, which is followed by those still pending).
  function declarationShow(id) {
    var jackpot = jackpots.get(id);
    if (!jackpot) return;
    var old = jackpot.el.querySelector(".declaration");
    if (old) old.remove();
    var frame = declarations.get(id);
    var pending = pendings.has(id) && strings.link_pending;
    jackpot.el.classList.toggle("declared", Boolean(frame || pending));
    if (frame || pending) {
      // A table's declaration says more (hand, table, seat) than a link's pending decision: it wins.
      var text = !frame ? strings.link_pending : strings.declaration
        .replace("%(hand)s", (strings.hands && strings.hands[frame.hand]) || frame.hand)
        .replace("%(table)s", frame.table)
        .replace("%(seat)s", String(frame.seat));
      var line = el("div", "declaration", text);  // it may wrap: the card's amount keeps its size
      line.setAttribute("role", "status");
      jackpot.el.insertBefore(line, jackpot.el.querySelector(".levels"));
    }
    if (id === order[0]) fitAll(); else fitCard(id);
  }

  // A wide-area jackpot won at this casino and not yet decided by the link (the line may be down).
  function pendingReceived(frame) {
    if (frame.pending) pendings.add(frame.jackpot); else pendings.delete(frame.jackpot);
    declarationShow(frame.jackpot);
    changed();
  }

  function declarationReceived(frame) {
    if (frame.state === "pending") declarations.set(frame.jackpot, frame);
    else if (declarations.has(frame.jackpot) && declarations.get(frame.jackpot).id === frame.id) {
      declarations.delete(frame.jackpot);
    } else return;
    declarationShow(frame.jackpot);
    changed();
  }

  function applyUpdate(update, now) {
    var level = levels.get(update.id);
    if (!level || update.seq <= level.seq) return;  // a screen ignores a seq lower than one it has shown
    level.seq = update.seq;
    stateApply(level, update);
    if (!levels.has(update.id)) return;
    var received = money(update, "amount", level.poolCurrency);
    var cents = received.cents;
    level.el.dataset.amountEur = update.amount_eur;
    if (cents !== level.target) changed();
    if (cents < level.shown || received.currency !== level.currency) {
      // A win, a correction or a change of currency: the new amount is shown at once, never counted down.
      level.currency = received.currency;
      level.el.dataset.currency = level.currency;
      level.from = level.target = cents;
      show(level, cents);
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
      if (next !== level.shown) show(level, next);
    });
    refit.forEach(fitCard);
    refit.clear();
    window.requestAnimationFrame(tick);
  }

  // --- link state, the footer, attract ---

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
    footerShow();
  }

  // The footer tells the truth: live only while connected and every link is up.
  function footerShow() {
    if (connection !== "live") return;
    var down = order.filter(function (id) { return jackpots.get(id).link === "down"; }).map(function (id) {
      return jackpots.get(id).el.querySelector(".jackpot-name").textContent;
    });
    if (down.length) {
      signEl.dataset.state = "degraded";
      statusEl.textContent = strings.link_down_footer.replace("%(names)s", down.join(", "));
    } else {
      signEl.dataset.state = "live";
      statusEl.textContent = strings.live;
    }
  }

  function attractCheck() {
    if (connection === "live" && Date.now() - lastChangeAt >= ATTRACT_MS) signEl.dataset.attract = "on";
  }

  // --- WIN ---

  function showNextWin() {
    var box = document.getElementById("win");
    if (!wins.length) { box.hidden = true; winTimer = null; return; }
    var hit = wins.shift();
    var level = levels.get(hit.level);
    var jackpot = level && jackpots.get(level.progressive);
    var title = jackpot ? jackpot.el.querySelector(".jackpot-name").textContent : "";
    document.getElementById("win-level").textContent = [title, level ? level.label : ""].filter(Boolean).join(" · ");
    var won = money(hit, "amount", level ? level.poolCurrency : "EUR");
    document.getElementById("win-amount").textContent = formatMoney(won.cents, won.currency);
    document.getElementById("win-place").textContent = hit.place || "";
    document.getElementById("win-machine").textContent = hit.machine || "";
    var card = document.getElementById("win-card");
    if (jackpot) themeCopy(box, jackpot);
    box.hidden = false;
    fit(card);
    changed();
    winTimer = window.setTimeout(showNextWin, WIN_MS);
  }

  // --- the connection ---

  function onFrame(frame) {
    lastFrameAt = Date.now();
    var now = window.performance.now();
    if (frame.type === "snapshot") {
      attempt = 0;
      offlineSince = null;
      connection = "live";
      declarations.clear();
      pendings.clear();
      renderSnapshot(frame.jackpots);
      changed();
      footerShow();
    } else if (frame.type === "update") {
      frame.levels.forEach(function (update) { applyUpdate(update, now); });
    } else if (frame.type === "hit") {
      wins.push(frame);
      if (!winTimer) showNextWin();
    } else if (frame.type === "link") {
      setLink(frame.jackpot, frame.state);
      changed();
      footerShow();
    } else if (frame.type === "theme") {
      themeReceived(frame);
    } else if (frame.type === "declaration") {
      declarationReceived(frame);
    } else if (frame.type === "pending") {
      pendingReceived(frame);
    } else if (frame.type === "rules") {
      rulesReceived(frame);
    }
  }

  function setState(state, text) {
    connection = state;
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
        setState("refused", strings.refused);
        delay = 60000;
      } else {
        // Exponential back-off with jitter, so a restarted server is not hit by every sign at once.
        delay = Math.min(30000, 1000 * Math.pow(2, attempt)) * (0.5 + Math.random() / 2);
        attempt += 1;
        setState("offline", strings.offline);
      }
      window.setTimeout(connect, delay);
    };
    lastFrameAt = Date.now();
  }

  window.setInterval(function () {
    // Silence past a few heartbeats means a dead connection the browser has not noticed.
    if (socket && socket.readyState === WebSocket.OPEN && Date.now() - lastFrameAt > WATCHDOG_MS) socket.close();
    refreshLinks();
    attractCheck();
    document.getElementById("clock").textContent = clockFormat.format(new Date());
  }, 1000);

  window.setInterval(function () {
    // Only a card whose link is down alternates; the others are left exactly as they are.
    jackpots.forEach(function (jackpot) {
      var card = jackpot.el;
      card.classList.toggle("show-warning", card.classList.contains("down") && !card.classList.contains("show-warning"));
    });
  }, ALTERNATE_MS);

  window.setInterval(function () {
    rulesAt += 1;
    rulesShow();
  }, RULES_MS);

  window.addEventListener("resize", function () {
    arrange();
    rulesFit();
  });
  window.requestAnimationFrame(tick);
  if (config.preview) {
    // The workspace's preview: the screen's snapshot comes in the page, a WIN from the page around it.
    onFrame({ type: "snapshot", jackpots: config.preview });
    window.addEventListener("message", function (event) {
      if (event.origin !== window.location.origin || !event.data || event.data.type !== "win") return;
      // A WIN of the first level (the hero's top prize) for its current amount, as a hit frame brings it.
      var first = levels.keys().next();
      if (first.done) return;
      var level = levels.get(first.value);
      onFrame({ type: "hit", level: first.value, amount: level.target, currency: level.currency,
                place: event.data.place || "", machine: event.data.machine || "" });
    });
    window.setInterval(function () {
      if (!winTimer) window.location.reload();
    }, config.preview_refresh_seconds * 1000);
  } else {
    connect();
  }
})();
