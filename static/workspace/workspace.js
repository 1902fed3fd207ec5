// The venue and language pickers apply as soon as a choice is made; their buttons stay for keyboards
// and for browsers without scripts.
document.querySelectorAll(".venue-switch select, .lang select").forEach(function (select) {
  select.addEventListener("change", function () { select.form.submit(); });
});

// A section marked data-refresh="<seconds>" is fetched again on that period and swapped in place, so the
// hits desk shows new hits without a reload; a failed fetch keeps what is shown and tries again later.
document.querySelectorAll("[data-refresh]").forEach(function (section) {
  var seconds = parseInt(section.dataset.refresh, 10);
  if (!(seconds > 0) || !section.id) { return; }
  setInterval(function () {
    fetch(window.location.href, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (!html) { return; }
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById(section.id);
        if (fresh) { section.innerHTML = fresh.innerHTML; }
      })
      .catch(function () {});
  }, seconds * 1000);
});
