// Uploads with a progress bar (large files take a while) and shows the server's preview in place, so the
// chosen file stays selected for the import that follows a clean dry run.
(function () {
  "use strict";
  var form = document.getElementById("inventory-form");
  if (!form) { return; }
  var bar = document.getElementById("upload-progress");
  var status = document.getElementById("upload-status");
  var confirmField = document.getElementById("confirm-field");

  function show(html) {
    var page = new DOMParser().parseFromString(html, "text/html");
    var old = document.getElementById("import-report");
    if (old) { old.remove(); }
    var fresh = page.getElementById("import-report");
    var errors = page.querySelectorAll("#inventory-form .errorlist");
    form.querySelectorAll(".errorlist").forEach(function (node) { node.remove(); });
    errors.forEach(function (node) { form.prepend(node); });
    if (fresh) { form.after(fresh); }
    bar.hidden = true;
    status.textContent = "";
  }

  function send(confirm) {
    var request = new XMLHttpRequest();
    confirmField.value = confirm ? "1" : "";
    request.open("POST", window.location.pathname);
    bar.hidden = false;
    bar.value = 0;
    request.upload.onprogress = function (event) {
      if (event.lengthComputable) {
        bar.value = Math.floor(event.loaded * 100 / event.total);
        status.textContent = bar.value + "% uploaded";
      }
    };
    request.upload.onload = function () {
      bar.removeAttribute("value");  // indeterminate while the server checks every row
      status.textContent = status.dataset.checking || "checking the rows…";
    };
    request.onload = function () { show(request.responseText); };
    request.onerror = function () { status.textContent = status.dataset.failed || "upload failed"; };
    request.send(new FormData(form));
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    send(false);
  });
  document.addEventListener("click", function (event) {
    if (event.target.id === "import-button") { send(true); }
  });
}());
