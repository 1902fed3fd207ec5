// The live floor map: a snapshot on connect, pushed updates after, reconnecting with a back-off. The side
// column (counts by state, open alerts) is fetched again after each change, at most once a second.
(function () {
  "use strict";
  var map = document.getElementById("floor-map");
  if (!map) { return; }
  var status = document.getElementById("live-status");
  var panel = document.getElementById("machine-detail");
  var side = document.getElementById("floor-side");
  var STATES = ["playing", "idle", "offline", "door_open", "tilt", "handpay"];
  var delay = 1000;
  var sideTimer = null;

  function paint(machine) {
    var tile = document.getElementById("machine-" + machine.id);
    if (!tile) { return false; }
    var changed = tile.dataset.state !== machine.state || tile.classList.contains("has-hit") !== !!machine.hit;
    STATES.forEach(function (state) { tile.classList.remove("state-" + state); });
    tile.classList.add("state-" + machine.state);
    tile.classList.toggle("has-hit", !!machine.hit);
    tile.dataset.state = machine.state;
    return changed;
  }

  function sideRefresh() {
    if (sideTimer !== null) { return; }
    sideTimer = window.setTimeout(function () {
      sideTimer = null;
      fetch(map.dataset.alerts, {credentials: "same-origin"})
        .then(function (response) { return response.ok ? response.text() : null; })
        .then(function (html) { if (html !== null) { side.innerHTML = html; } })
        .catch(function () { /* the next change or snapshot tries again */ });
    }, 1000);
  }

  function connect() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + window.location.host + map.dataset.ws);
    socket.onopen = function () { delay = 1000; status.textContent = status.dataset.live || "live"; status.dataset.state = "live"; };
    socket.onmessage = function (message) {
      var data = JSON.parse(message.data);
      var changed = (data.machines || []).map(paint).some(Boolean);
      if (changed || data.type === "snapshot") { sideRefresh(); }
    };
    socket.onclose = function () {
      status.textContent = status.dataset.down || "reconnecting…"; status.dataset.state = "down";
      window.setTimeout(connect, delay);
      delay = Math.min(delay * 2, 30000);
    };
  }

  map.addEventListener("click", function (event) {
    var tile = event.target.closest(".machine");
    if (!tile) { return; }
    fetch(map.dataset.panel.replace("ASSET", encodeURIComponent(tile.dataset.asset)), {credentials: "same-origin"})
      .then(function (response) { return response.text(); })
      .then(function (html) { panel.innerHTML = html; });
  });
  connect();
}());
