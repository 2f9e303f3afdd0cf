"""The kept queue groups by assignee: when triage offers its values
uncounted (a search, coverage, date or rungs filter keeping too many
answers to count), the assignees holding answers are read from the groups a
key at a time; in the unique key the assignee comes fifth, and PostgreSQL
found a user's groups by reading the whole key index (33 ms a page at 20,000
groups, a million answers). A small table (a few hundred groups at 1k
answers): the index builds in a moment."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('reviewer', '0031_search_document_statistics'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='queuegroup',
            index=models.Index(fields=['assignee_key'], name='queue_group_assignee'),
        ),
    ]
