# The table games left the engine on a branch of their own, beside the signs and the gateways' server side.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('jackpots', '0022_hit_table_payer_leaves'),
        ('jackpots', '0022_merge_signage_gatewaylink'),
    ]

    operations = [
    ]
