"""Forms of the document pages: the dashboard's filters (read from the URL)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from documents.dashboard import SORT_KEYS, DocumentFilters
from documents.models import DocumentStatus
from documents.provenance import contract_type_label


class DocumentFilterForm(forms.Form):
    """The dashboard's URL: filters, sort and page. A value the form refuses is dropped (the
    table is shown without it) and the person is told why; the page never fails on it."""

    q = forms.CharField(label=_("Contains"), required=False, max_length=200)
    status = forms.ChoiceField(label=_("Status"), required=False)
    contract_type = forms.ChoiceField(label=_("Contract type"), required=False)
    governing_law = forms.ChoiceField(label=_("Governing law"), required=False)
    warnings = forms.BooleanField(label=_("With warnings only"), required=False)
    sort = forms.ChoiceField(required=False, choices=[(key, key) for key in SORT_KEYS])
    dir = forms.ChoiceField(required=False, choices=[("asc", "asc"), ("desc", "desc")])
    page = forms.IntegerField(required=False, min_value=1)

    def __init__(self, data: Any, *, choices: dict[str, list[str]]) -> None:
        super().__init__(data)
        every = [("", gettext("all"))]
        self.fields["status"].choices = every + list(DocumentStatus.choices)  # type: ignore[attr-defined]
        types = [(key, contract_type_label(key)) for key in choices["contract_type"]]
        self.fields["contract_type"].choices = every + types  # type: ignore[attr-defined]
        laws = [(value, value) for value in choices["governing_law"]]
        self.fields["governing_law"].choices = every + laws  # type: ignore[attr-defined]

    def problems(self) -> list[str]:
        """What was refused, one sentence per field, in the page's language."""
        self.is_valid()
        return [
            gettext("%(field)s: %(error)s")
            % {
                "field": self.fields[name].label or name,
                "error": " ".join(str(error) for error in errors),
            }
            for name, errors in self.errors.items()
        ]

    def _value(self, name: str) -> Any:
        """The field's cleaned value, or its empty value when it was refused."""
        if name in self.errors or not hasattr(self, "cleaned_data"):
            return None
        return self.cleaned_data.get(name)

    def filters(self) -> DocumentFilters:
        self.is_valid()
        return DocumentFilters(
            text=(self._value("q") or "").strip(),
            status=self._value("status") or "",
            contract_type=self._value("contract_type") or "",
            governing_law=self._value("governing_law") or "",
            with_warnings=bool(self._value("warnings")),
            sort=self._value("sort") or "ref",
            descending=self._value("dir") == "desc",
        )

    def page_number(self) -> int:
        self.is_valid()
        return int(self._value("page") or 1)
