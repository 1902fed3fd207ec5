# The signs and the SAS gateways' server side left the engine on two branches at once.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('jackpots', '0021_sasaward_to_gatewaylink'),
        ('jackpots', '0021_signs_leave_for_signage'),
    ]

    operations = [
    ]
