"""REST endpoints for documents: list, detail, upload, batch status. One APIView per operation."""

from __future__ import annotations

from typing import Any, cast

from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from documents.models import Document, IngestBatch
from documents.pipeline import refusals, store_uploads
from documents.selectors import batch_status, document_get, document_links, document_list
from workspaces.drf import ScopedAPIView
from workspaces.models import Role, User, Workspace
from workspaces.selectors import RoleRequired, workspace_get_for_member


def _workspace(request: Request, slug: str, min_role: str = Role.VIEWER) -> Workspace:
    try:
        return workspace_get_for_member(user=cast(User, request.user), slug=slug, min_role=min_role)
    except RoleRequired as exc:
        raise PermissionDenied(str(exc)) from exc


class PartySerializer(serializers.Serializer[Any]):
    entity_id = serializers.IntegerField()
    name = serializers.CharField(source="entity.name")
    name_as_written = serializers.CharField()
    siren = serializers.CharField(source="entity.siren")
    role = serializers.CharField()
    defined_term = serializers.CharField()


class DocumentSummarySerializer(serializers.ModelSerializer[Document]):
    contract_id = serializers.CharField(source="ref")
    parties = PartySerializer(many=True)

    class Meta:
        model = Document
        fields: tuple[str, ...] = (
            "contract_id",
            "title",
            "filename",
            "status",
            "status_reason",
            "needs_ocr",
            "contract_type",
            "contract_type_title",
            "signature_date",
            "signature_precision",
            "signature_earliest",
            "signature_latest",
            "effective_date",
            "end_date",
            "end_date_kind",
            "effective_end_date",
            "renewal",
            "governing_law",
            "parties",
            "warnings",
        )


class DocumentListApi(ScopedAPIView):
    @extend_schema(responses=DocumentSummarySerializer(many=True))
    def get(self, request: Request, slug: str) -> Response:
        workspace = _workspace(request, slug)
        documents = document_list(workspace=workspace)
        return Response(DocumentSummarySerializer(documents, many=True).data)


class DocumentDetailApi(ScopedAPIView):
    @extend_schema_serializer(component_name="DocumentDetail")
    class OutputSerializer(DocumentSummarySerializer):
        amends = serializers.SerializerMethodField()
        amended_by = serializers.SerializerMethodField()

        class Meta(DocumentSummarySerializer.Meta):
            fields = (
                *DocumentSummarySerializer.Meta.fields,
                "other_filenames",
                "media_type",
                "sha256",
                "size_bytes",
                "language",
                "end_date_source",
                "effective_end_explanation",
                "governing_law_source",
                "amounts",
                "identifiers",
                "provenance",
                "is_amendment",
                "amends",
                "amended_by",
            )

        def get_amends(self, document: Document) -> list[dict[str, str]]:
            return [
                {"contract_id": link.target.ref, "explanation": link.explanation}
                for link in self.context["links"]["amends"]
            ]

        def get_amended_by(self, document: Document) -> list[dict[str, str]]:
            return [
                {"contract_id": link.source.ref, "explanation": link.explanation}
                for link in self.context["links"]["amended_by"]
            ]

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request, slug: str, ref: str) -> Response:
        workspace = _workspace(request, slug)
        document = document_get(workspace=workspace, ref=ref)
        context = {"links": document_links(document=document)}
        return Response(self.OutputSerializer(document, context=context).data)


class DocumentUploadApi(ScopedAPIView):
    """Multipart upload of one or more files (field ``files``); processing is queued."""

    parser_classes = (MultiPartParser,)

    @extend_schema_serializer(component_name="UploadResult")
    class OutputSerializer(serializers.Serializer[Any]):
        batch_id = serializers.IntegerField()
        stored = serializers.ListField(child=serializers.DictField())
        refused = serializers.ListField(child=serializers.DictField())

    @extend_schema(
        request={
            "multipart/form-data": {
                "type": "object",
                "properties": {
                    "files": {"type": "array", "items": {"type": "string", "format": "binary"}}
                },
            }
        },
        responses={202: OutputSerializer},
    )
    def post(self, request: Request, slug: str) -> Response:
        workspace = _workspace(request, slug, min_role=Role.EDITOR)
        files = request.FILES.getlist("files")
        if not files:
            return Response(
                {"error": gettext("Send one or more files in the multipart field 'files'.")},
                status=status.HTTP_400_BAD_REQUEST,
            )
        batch, results = store_uploads(
            workspace=workspace, uploads=files, user=cast(User, request.user), label="api upload"
        )
        body = {
            "batch_id": batch.pk,
            "stored": [
                {"file": r.name, "contract_id": r.document.ref, "created": r.created}
                for r in results
                if r.document is not None
            ],
            "refused": refusals(results),
        }
        code = status.HTTP_202_ACCEPTED if body["stored"] else status.HTTP_400_BAD_REQUEST
        return Response(self.OutputSerializer(body).data, status=code)


class BatchStatusApi(ScopedAPIView):
    @extend_schema_serializer(component_name="BatchStatus")
    class OutputSerializer(serializers.Serializer[Any]):
        batch_id = serializers.IntegerField()
        documents = serializers.IntegerField(help_text="Documents the batch stored.")
        statuses = serializers.DictField(
            child=serializers.IntegerField(), help_text="Documents per status."
        )
        done = serializers.BooleanField(help_text="Every document in a final status.")
        refused = serializers.ListField(
            child=serializers.DictField(child=serializers.CharField()),
            help_text="Files refused before storage: file, code, error.",
        )

    @extend_schema(
        responses=OpenApiResponse(
            OutputSerializer, description="Statuses of the batch's documents and refusals."
        )
    )
    def get(self, request: Request, slug: str, batch_id: int) -> Response:
        workspace = _workspace(request, slug)
        batch = IngestBatch.objects.filter(workspace=workspace, pk=batch_id).first()
        if batch is None:
            return Response({"detail": gettext("No such batch.")}, status=status.HTTP_404_NOT_FOUND)
        state = batch_status(batch=batch)
        return Response(
            {
                "batch_id": state.batch_id,
                "documents": state.documents,
                "statuses": state.statuses,
                "done": state.documents_final,
                "refused": state.refused,
            }
        )
