"""Entities: the parties' companies, found or created while reading metadata, and the
admin's merges and splits."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext

from documents import extraction
from documents.models import Document, DocumentParty, Entity
from workspaces.audit import audit_record
from workspaces.models import User


def entity_for_party(document: Document, name: str, siren_written: str) -> tuple[Entity, list[str]]:
    """Find or create the party's entity (following admin merges); SIREN checked by Luhn."""
    warnings = []
    key = extraction.entity_key(name) or name.strip().lower()
    display = extraction.display_name(name)
    # An admin split wins over the automatic key, so re-processing does not undo it.
    split = Entity.objects.filter(
        workspace=document.workspace, key__startswith=f"{key}#split", name=display
    ).first()
    entity = (
        split
        or Entity.objects.get_or_create(
            workspace=document.workspace, key=key, defaults={"name": display}
        )[0]
    )
    while entity.merged_into_id is not None:
        entity = entity.merged_into  # type: ignore[assignment]
    changed = False
    if display != entity.name and display not in entity.aliases:
        entity.aliases = [*entity.aliases, display]
        changed = True
    siren = extraction.normalize_siren(siren_written)
    if siren_written and siren is None:
        message = gettext("Unreadable SIREN for %(party)s: %(value)r.")
        warnings.append(message % {"party": display, "value": siren_written})
    elif siren:
        valid = extraction.siren_is_valid(siren)
        if not valid:
            message = gettext("SIREN %(siren)s of %(party)s is invalid (Luhn check digit).")
            warnings.append(message % {"siren": siren, "party": display})
        if not entity.siren:
            entity.siren, entity.siren_valid, changed = siren, valid, True
        elif entity.siren != siren:
            message = gettext(
                "SIREN %(siren)s of %(party)s differs from the one already known (%(known)s)."
            )
            warnings.append(message % {"siren": siren, "party": display, "known": entity.siren})
    if changed:
        entity.save()
    return entity, warnings


@transaction.atomic
def entity_merge(*, target: Entity, others: list[Entity], actor: User) -> Entity:
    """Fold ``others`` into ``target``: parties repointed, names kept as aliases."""
    for other in others:
        if other.pk == target.pk or other.workspace_id != target.workspace_id:
            continue
        DocumentParty.objects.filter(entity=other).update(entity=target)
        target.aliases = sorted({*target.aliases, other.name, *other.aliases} - {target.name})
        if not target.siren and other.siren:
            target.siren, target.siren_valid = other.siren, other.siren_valid
        other.merged_into = target
        other.save(update_fields=["merged_into"])
        audit_record(
            firm=target.workspace.firm,
            workspace=target.workspace,
            actor=actor,
            action="entity.merge",
            target=f"{other.name} -> {target.name}",
        )
    target.save()
    return target


@transaction.atomic
def entity_split_alias(*, entity: Entity, alias: str, actor: User) -> Entity:
    """Give ``alias`` its own entity again, with the parties written that way."""
    key = f"{extraction.entity_key(alias)}#split{entity.pk}"
    new_entity, _ = Entity.objects.get_or_create(
        workspace=entity.workspace, key=key, defaults={"name": alias}
    )
    parties = DocumentParty.objects.filter(entity=entity)
    moved = [p.pk for p in parties if extraction.display_name(p.name_as_written) == alias]
    DocumentParty.objects.filter(pk__in=moved).update(entity=new_entity)
    entity.aliases = [a for a in entity.aliases if a != alias]
    entity.save(update_fields=["aliases"])
    audit_record(
        firm=entity.workspace.firm,
        workspace=entity.workspace,
        actor=actor,
        action="entity.split",
        target=f"{alias} <- {entity.name}",
        details={"parties_moved": len(moved)},
    )
    return new_entity
