from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("documents", "0009_titles_from_text")]

    operations = [
        migrations.AddField(
            model_name="clauseclassifier",
            name="lexical_bits",
            field=models.PositiveSmallIntegerField(default=0),
        ),
    ]
