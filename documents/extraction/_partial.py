"""A date known to the day, the month or only the year ("2004", "February ___, 2017")."""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date
from typing import Literal

Precision = Literal["day", "month", "year"]


@dataclass(frozen=True, order=True)
class PartialDate:
    """A calendar date of which the month or the day may be unknown.

    A contract "dated as of February ___, 2017" is known to the month: it is kept as such,
    never rounded to a day that would be shown as certain.
    """

    year: int
    month: int | None = None
    day: int | None = None

    def __post_init__(self) -> None:
        if self.day is not None and self.month is None:
            raise ValueError("a day without a month")
        if self.month is not None and not 1 <= self.month <= 12:
            raise ValueError(f"no month {self.month}")
        if self.day is not None and self.day < 1:
            raise ValueError(f"no day {self.day}")
        # Raises ValueError for dates that do not exist (31 February) or a year out of range.
        date(self.year, self.month or 1, self.day or 1)

    @classmethod
    def of(cls, value: date) -> PartialDate:
        return cls(value.year, value.month, value.day)

    @property
    def precision(self) -> Precision:
        if self.day is not None:
            return "day"
        return "month" if self.month is not None else "year"

    @property
    def exact(self) -> date | None:
        """The date itself when known to the day."""
        if self.month is None or self.day is None:
            return None
        return date(self.year, self.month, self.day)

    @property
    def earliest(self) -> date:
        return date(self.year, self.month or 1, self.day or 1)

    @property
    def latest(self) -> date:
        month = self.month or 12
        return date(self.year, month, self.day or calendar.monthrange(self.year, month)[1])

    def iso(self) -> str:
        """ "2004", "2017-02" or "2017-02-14"."""
        if self.month is None:
            return f"{self.year:04d}"
        if self.day is None:
            return f"{self.year:04d}-{self.month:02d}"
        return f"{self.year:04d}-{self.month:02d}-{self.day:02d}"

    @classmethod
    def from_iso(cls, value: str) -> PartialDate:
        """The inverse of :meth:`iso`; ValueError on anything else."""
        parts = value.split("-")
        if not 1 <= len(parts) <= 3 or not all(part.isdigit() for part in parts):
            raise ValueError(f"not a partial ISO date: {value!r}")
        numbers = [int(part) for part in parts]
        return cls(*numbers)
