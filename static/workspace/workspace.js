// The venue and language pickers apply as soon as a choice is made; their buttons stay for keyboards
// and for browsers without scripts.
document.querySelectorAll(".venue-switch select, .lang select").forEach(function (select) {
  select.addEventListener("change", function () { select.form.submit(); });
});
