"""The base of every record that is written once (money, sign-offs, the significant-events register)."""

from __future__ import annotations

from typing import Any, NoReturn

from django.db import models


class AppendOnlyModel(models.Model):
    """Rows are written once: the record of money must never be edited or deleted in place."""

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None and not self._state.adding:
            raise ValueError(f"{type(self).__name__} is append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise ValueError(f"{type(self).__name__} is append-only")
