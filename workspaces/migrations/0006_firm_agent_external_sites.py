from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("workspaces", "0005_verbose_names"),
    ]

    operations = [
        migrations.AddField(
            model_name="firm",
            name="agent_external_sites",
            field=models.BooleanField(
                default=True,
                db_default=True,
                help_text=(
                    "The chat agent may search public case-law sites (Conseil d'État, open "
                    "data) with short queries built from the question. Off: nothing the agent "
                    "does leaves the server."
                ),
                verbose_name="agent may query public sites",
            ),
        ),
    ]
