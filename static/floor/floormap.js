// The live floor map: a snapshot on connect, pushed updates after, reconnecting with a back-off.
(function () {
  "use strict";
  var map = document.getElementById("floor-map");
  if (!map) { return; }
  var status = document.getElementById("live-status");
  var panel = document.getElementById("machine-detail");
  var STATES = ["playing", "idle", "offline", "door_open", "tilt", "handpay"];
  var delay = 1000;

  function paint(machine) {
    var tile = document.getElementById("machine-" + machine.id);
    if (!tile) { return; }
    STATES.forEach(function (state) { tile.classList.remove("state-" + state); });
    tile.classList.add("state-" + machine.state);
    tile.dataset.state = machine.state;
  }

  function connect() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + window.location.host + map.dataset.ws);
    socket.onopen = function () { delay = 1000; status.textContent = status.dataset.live || "live"; status.dataset.state = "live"; };
    socket.onmessage = function (message) {
      var data = JSON.parse(message.data);
      (data.machines || []).forEach(paint);
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
