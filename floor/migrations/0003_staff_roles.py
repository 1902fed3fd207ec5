"""The three staff roles as groups. Their permissions are applied by floor.roles after every migrate
(permissions themselves only exist once post_migrate has created them)."""

from django.db import migrations

ROLES = ("Floor manager", "Slot attendant", "Auditor")


def roles_create(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    for name in ROLES:
        Group.objects.using(schema_editor.connection.alias).get_or_create(name=name)


def roles_delete(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Group.objects.using(schema_editor.connection.alias).filter(name__in=ROLES).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("floor", "0002_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(roles_create, roles_delete)]
