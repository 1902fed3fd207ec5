"""The table games' models, until now the jackpots app's, become the tables app's: in the state only,
each on the ``jackpots_*`` table it has always had (a fresh install creates those tables in the jackpots
migrations, an upgraded one has them: both reach the same schema). Their content types follow them, so
the permissions people and groups hold on them stay the same rows (``tables.release_tabledeclaration``
is the permission ``jackpots.release_tabledeclaration`` was)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


MOVED = [
    "paytable",
    "payline",
    "paytablechange",
    "table",
    "tablekey",
    "prizeshare",
    "tableround",
    "tableseat",
    "prizepart",
    "tabledeclaration",
]


def _content_types_move(apps, schema_editor, source: str, target: str) -> None:
    ContentType = apps.get_model("contenttypes", "ContentType")
    types = ContentType.objects.using(schema_editor.connection.alias)
    for model in MOVED:
        # One already made for the target (a run interrupted after post_migrate) would clash: the source's
        # row carries the permissions, so it wins.
        if types.filter(app_label=source, model=model).exists():
            types.filter(app_label=target, model=model).delete()
            types.filter(app_label=source, model=model).update(app_label=target)


def content_types_to_tables(apps, schema_editor) -> None:
    _content_types_move(apps, schema_editor, "jackpots", "tables")


def content_types_to_jackpots(apps, schema_editor) -> None:
    _content_types_move(apps, schema_editor, "tables", "jackpots")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('floor', '0011_significant_events'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('jackpots', '0020_merge_lifecycle'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='PayTable',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('game', models.CharField(choices=[('caribbean_stud', 'Caribbean Stud Poker'), ('casino_holdem', "Casino Hold'em (Jumbo 7)")], max_length=16, verbose_name='game')),
                        ('share_window_seconds', models.PositiveIntegerField(default=60, help_text='Percentage prizes of the same hand in rounds this close to the first winning round are one prize, divided between the winners (the linked tables stop while a big hand is declared).', verbose_name='simultaneous wins window (s)')),
                        ('level', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='jackpots.level', verbose_name='jackpot level')),
                        ('progressive', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='pay_table', to='jackpots.progressive', verbose_name='progressive')),
                    ],
                    options={
                        'verbose_name': 'pay table',
                        'verbose_name_plural': 'pay tables',
                        'db_table': 'jackpots_paytable',
                        'permissions': [('stage_paytable', 'Can change pay table lines (staged, with a reason)')],
                    },
                ),
                        migrations.CreateModel(
                    name='PayTableChange',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('at', models.DateTimeField(verbose_name='requested at')),
                        ('reason', models.TextField(verbose_name='reason')),
                        ('state', models.CharField(choices=[('staged', 'Staged until the next reset'), ('applied', 'Applied')], max_length=8, verbose_name='state')),
                        ('applied_at', models.DateTimeField(blank=True, null=True, verbose_name='applied at')),
                        ('applied_cycle', models.PositiveIntegerField(blank=True, null=True, verbose_name='first cycle with the change')),
                        ('old', models.JSONField(verbose_name='old lines')),
                        ('new', models.JSONField(verbose_name='new lines')),
                        ('requested_cycle', models.PositiveIntegerField(verbose_name='level cycle when requested')),
                        ('pay_table', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='changes', to='tables.paytable', verbose_name='pay table')),
                        ('user', models.ForeignKey(null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='user')),
                    ],
                    options={
                        'verbose_name': 'pay table change',
                        'verbose_name_plural': 'pay table changes',
                        'db_table': 'jackpots_paytablechange',
                        'ordering': ['id'],
                    },
                ),
                        migrations.CreateModel(
                    name='PrizeShare',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('hand', models.CharField(choices=[('royal_flush', 'Royal Flush'), ('straight_flush_7', '7-card Straight Flush'), ('straight_flush_6', '6-card Straight Flush'), ('straight_flush_5', '5-card Straight Flush'), ('straight_flush', 'Straight Flush'), ('four_of_a_kind', 'Four of a Kind'), ('full_house', 'Full House'), ('flush', 'Flush'), ('straight', 'Straight'), ('three_of_a_kind', 'Three of a Kind'), ('two_pair', 'Two Pair'), ('one_pair', 'One Pair'), ('high_card', 'High Card')], max_length=20, verbose_name='hand')),
                        ('opened_at', models.DateTimeField(verbose_name='first winning round at')),
                        ('closes_at', models.DateTimeField(verbose_name='later rounds join until')),
                        ('percent', models.DecimalField(decimal_places=4, max_digits=7, verbose_name='percent')),
                        ('base_mc', models.BigIntegerField(verbose_name='amount standing before the first was paid (millicents)')),
                        ('prize_cents', models.BigIntegerField(verbose_name="prize (cents of the progressive's currency)")),
                        ('voided', models.BooleanField(default=False, verbose_name='voided')),
                        ('hit', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='prize_share', to='jackpots.hit', verbose_name='hit')),
                        ('level', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='jackpots.level', verbose_name='level')),
                    ],
                    options={
                        'verbose_name': 'shared prize',
                        'verbose_name_plural': 'shared prizes',
                        'db_table': 'jackpots_prizeshare',
                        'ordering': ['-opened_at', '-id'],
                    },
                ),
                        migrations.CreateModel(
                    name='Table',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('code', models.CharField(help_text='NOG-CSP-1', max_length=24, unique=True, verbose_name='code')),
                        ('game', models.CharField(choices=[('caribbean_stud', 'Caribbean Stud Poker'), ('casino_holdem', "Casino Hold'em (Jumbo 7)")], max_length=16, verbose_name='game')),
                        ('jackpot_bet_cents', models.PositiveIntegerField(blank=True, help_text="Caribbean Stud: the fixed price of the jackpot chip, in the venue's currency.", null=True, verbose_name='jackpot bet (cents)')),
                        ('min_jackpot_bet_cents', models.PositiveIntegerField(default=1, verbose_name='minimum jackpot bet (cents)')),
                        ('max_jackpot_bet_cents', models.PositiveIntegerField(default=100000, verbose_name='maximum jackpot bet (cents)')),
                        ('seats', models.PositiveSmallIntegerField(default=7, verbose_name='seats')),
                        ('active', models.BooleanField(default=True, verbose_name='active')),
                        ('progressive', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='tables', to='jackpots.progressive', verbose_name='progressive')),
                        ('room', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='tables', to='floor.room', verbose_name='room')),
                        ('venue', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='tables', to='floor.venue', verbose_name='venue')),
                    ],
                    options={
                        'verbose_name': 'table',
                        'verbose_name_plural': 'tables',
                        'db_table': 'jackpots_table',
                        'ordering': ['code'],
                    },
                ),
                        migrations.CreateModel(
                    name='TableKey',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('digest', models.CharField(editable=False, max_length=64, unique=True, verbose_name='digest')),
                        ('prefix', models.CharField(editable=False, max_length=24, verbose_name='prefix')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='issued at')),
                        ('last_used_at', models.DateTimeField(blank=True, editable=False, null=True, verbose_name='last used at')),
                        ('revoked_at', models.DateTimeField(blank=True, editable=False, null=True, verbose_name='revoked at')),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='issued by')),
                        ('table', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='keys', to='tables.table', verbose_name='table')),
                    ],
                    options={
                        'verbose_name': 'table key',
                        'verbose_name_plural': 'table keys',
                        'db_table': 'jackpots_tablekey',
                    },
                ),
                        migrations.CreateModel(
                    name='TableRound',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('round_id', models.CharField(max_length=64, verbose_name='round')),
                        ('at', models.DateTimeField(verbose_name='played at')),
                        ('received_at', models.DateTimeField(verbose_name='received at')),
                        ('digest', models.CharField(help_text='SHA-256 of the request: a retry must match it.', max_length=64, verbose_name='digest')),
                        ('state', models.CharField(choices=[('recorded', 'Recorded'), ('voided', 'Voided')], default='recorded', max_length=8, verbose_name='state')),
                        ('cycle', models.PositiveIntegerField(verbose_name='level cycle')),
                        ('hit_number', models.PositiveIntegerField(default=0, verbose_name='last hit on the level')),
                        ('community', models.JSONField(blank=True, default=list, verbose_name='community cards')),
                        ('dealer', models.JSONField(blank=True, default=list, verbose_name="dealer's cards")),
                        ('currency', models.CharField(max_length=3, verbose_name='venue currency')),
                        ('pool_currency', models.CharField(max_length=3, verbose_name='progressive currency')),
                        ('rate', models.DecimalField(decimal_places=8, default=1, max_digits=18, verbose_name='rate used (venue currency per progressive unit)')),
                        ('bets_cents', models.BigIntegerField(default=0, verbose_name='jackpot bets (venue cents)')),
                        ('wagered_pool_cents', models.BigIntegerField(default=0, verbose_name='jackpot bets (progressive cents)')),
                        ('added_mc', models.BigIntegerField(default=0, verbose_name='added to the amount and overflow (millicents)')),
                        ('reserved_mc', models.BigIntegerField(default=0, verbose_name='added to the reserve (millicents)')),
                        ('response', models.JSONField(default=dict, verbose_name='first answer')),
                        ('voided_at', models.DateTimeField(blank=True, null=True, verbose_name='voided at')),
                        ('void_reason', models.TextField(blank=True, verbose_name='void reason')),
                        ('exchange_rate', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, to='jackpots.exchangerate', verbose_name='exchange rate')),
                        ('level', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='jackpots.level', verbose_name='level')),
                        ('table', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='rounds', to='tables.table', verbose_name='table')),
                        ('voided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='voided by')),
                    ],
                    options={
                        'verbose_name': 'table round',
                        'verbose_name_plural': 'table rounds',
                        'db_table': 'jackpots_tableround',
                        'ordering': ['-at', '-id'],
                    },
                ),
                        migrations.CreateModel(
                    name='TableDeclaration',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('seat', models.PositiveSmallIntegerField(verbose_name='seat')),
                        ('hand', models.CharField(choices=[('royal_flush', 'Royal Flush'), ('straight_flush_7', '7-card Straight Flush'), ('straight_flush_6', '6-card Straight Flush'), ('straight_flush_5', '5-card Straight Flush'), ('straight_flush', 'Straight Flush'), ('four_of_a_kind', 'Four of a Kind'), ('full_house', 'Full House'), ('flush', 'Flush'), ('straight', 'Straight'), ('three_of_a_kind', 'Three of a Kind'), ('two_pair', 'Two Pair'), ('one_pair', 'One Pair'), ('high_card', 'High Card')], max_length=20, verbose_name='hand')),
                        ('opened_at', models.DateTimeField(verbose_name="declared at (the round's played-at time)")),
                        ('expires_at', models.DateTimeField(verbose_name='lapses at')),
                        ('state', models.CharField(choices=[('pending', 'Pending'), ('released', 'Released'), ('paid', 'Released: prize paid'), ('lapsed', 'Lapsed (window over)')], default='pending', max_length=10, verbose_name='state')),
                        ('released_at', models.DateTimeField(blank=True, null=True, verbose_name='released at')),
                        ('release_reason', models.TextField(blank=True, verbose_name='release reason')),
                        ('level', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='jackpots.level', verbose_name='level')),
                        ('progressive', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='jackpots.progressive', verbose_name='progressive')),
                        ('released_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='released by')),
                        ('share', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='declarations', to='tables.prizeshare', verbose_name='shared prize')),
                        ('table', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='tables.table', verbose_name='table')),
                        ('round', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='declaration', to='tables.tableround', verbose_name='declaring round')),
                    ],
                    options={
                        'verbose_name': 'table declaration',
                        'verbose_name_plural': 'table declarations',
                        'db_table': 'jackpots_tabledeclaration',
                        'ordering': ['-opened_at', '-id'],
                        'permissions': [('release_tabledeclaration', 'Can release a table declaration')],
                    },
                ),
                        migrations.CreateModel(
                    name='TableSeat',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('seat', models.PositiveSmallIntegerField(verbose_name='seat')),
                        ('cards', models.JSONField(verbose_name='cards')),
                        ('changed_card', models.BooleanField(default=False, verbose_name='changed card')),
                        ('hand', models.CharField(choices=[('royal_flush', 'Royal Flush'), ('straight_flush_7', '7-card Straight Flush'), ('straight_flush_6', '6-card Straight Flush'), ('straight_flush_5', '5-card Straight Flush'), ('straight_flush', 'Straight Flush'), ('four_of_a_kind', 'Four of a Kind'), ('full_house', 'Full House'), ('flush', 'Flush'), ('straight', 'Straight'), ('three_of_a_kind', 'Three of a Kind'), ('two_pair', 'Two Pair'), ('one_pair', 'One Pair'), ('high_card', 'High Card')], max_length=20, verbose_name='hand')),
                        ('jackpot_bet_cents', models.PositiveBigIntegerField(default=0, verbose_name='jackpot bet (venue cents)')),
                        ('bet_pool_cents', models.PositiveBigIntegerField(default=0, verbose_name='jackpot bet (progressive cents)')),
                        ('contribution_mc', models.BigIntegerField(default=0, verbose_name='contribution (millicents)')),
                        ('share_weight', models.PositiveBigIntegerField(default=0, verbose_name='share weight')),
                        ('share_cents', models.BigIntegerField(default=0, verbose_name='share of the progressive (progressive cents)')),
                        ('fixed_cents', models.BigIntegerField(default=0, verbose_name='fixed prize (progressive cents)')),
                        ('award_cents', models.BigIntegerField(default=0, verbose_name='award (venue cents)')),
                        ('fixed_hit', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='table_seat', to='jackpots.hit', verbose_name="fixed prize's hit")),
                        ('round', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='seat_rows', to='tables.tableround', verbose_name='round')),
                        ('share', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='seats', to='tables.prizeshare', verbose_name='shared prize')),
                    ],
                    options={
                        'verbose_name': 'seat',
                        'verbose_name_plural': 'seats',
                        'db_table': 'jackpots_tableseat',
                        'ordering': ['round', 'seat'],
                    },
                ),
                        migrations.CreateModel(
                    name='PrizePart',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('winner_name', models.CharField(blank=True, max_length=120, verbose_name="winner's name")),
                        ('winner_document_type', models.CharField(blank=True, choices=[('id_card', 'Identity card'), ('passport', 'Passport'), ('driving_licence', 'Driving licence')], max_length=16, verbose_name='identity document')),
                        ('winner_document_number', models.CharField(blank=True, max_length=40, verbose_name='document number')),
                        ('winner_document_country', models.CharField(blank=True, help_text='ISO 3166 code, e.g. IT', max_length=2, verbose_name='issuing country')),
                        ('amount_cents', models.BigIntegerField(default=0, verbose_name="part (cents of the venue's currency)")),
                        ('currency', models.CharField(max_length=3, verbose_name='venue currency')),
                        ('state', models.CharField(choices=[('open', 'To verify'), ('verified', 'Verified'), ('paid', 'Paid'), ('voided', 'Voided')], default='open', max_length=12, verbose_name='state')),
                        ('verified_at', models.DateTimeField(blank=True, null=True, verbose_name='verified at')),
                        ('second_verified_at', models.DateTimeField(blank=True, null=True, verbose_name='second verification at')),
                        ('paid_at', models.DateTimeField(blank=True, null=True, verbose_name='paid at')),
                        ('void_requested_at', models.DateTimeField(blank=True, null=True, verbose_name='void asked at')),
                        ('void_reason', models.TextField(blank=True, verbose_name='void reason')),
                        ('paid_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='paid by')),
                        ('second_verified_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='second verifier')),
                        ('verified_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='verified by')),
                        ('void_requested_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='void asked by')),
                        ('share', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='prize_parts', to='tables.prizeshare', verbose_name='shared prize')),
                        ('paid_by_table', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='tables.table', verbose_name='paid at the table')),
                        ('key', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='tables.tablekey', verbose_name='key')),
                        ('paid_by_key', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='tables.tablekey', verbose_name='paid with the table key')),
                        ('seat', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='part', to='tables.tableseat', verbose_name='seat')),
                    ],
                    options={
                        'verbose_name': 'prize part',
                        'verbose_name_plural': 'prize parts',
                        'db_table': 'jackpots_prizepart',
                        'ordering': ['share', 'id'],
                    },
                ),
                        migrations.CreateModel(
                    name='PayLine',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('hand', models.CharField(choices=[('royal_flush', 'Royal Flush'), ('straight_flush_7', '7-card Straight Flush'), ('straight_flush_6', '6-card Straight Flush'), ('straight_flush_5', '5-card Straight Flush'), ('straight_flush', 'Straight Flush'), ('four_of_a_kind', 'Four of a Kind'), ('full_house', 'Full House'), ('flush', 'Flush'), ('straight', 'Straight'), ('three_of_a_kind', 'Three of a Kind'), ('two_pair', 'Two Pair'), ('one_pair', 'One Pair'), ('high_card', 'High Card')], max_length=20, verbose_name='hand')),
                        ('kind', models.CharField(choices=[('percent', 'Percentage of the progressive'), ('fixed', 'Fixed amount')], max_length=8, verbose_name='kind')),
                        ('percent', models.DecimalField(blank=True, decimal_places=4, max_digits=7, null=True, verbose_name='percent')),
                        ('fixed_cents', models.PositiveBigIntegerField(blank=True, null=True, verbose_name='fixed amount (cents)')),
                        ('pay_table', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='lines', to='tables.paytable', verbose_name='pay table')),
                    ],
                    options={
                        'verbose_name': 'pay table line',
                        'verbose_name_plural': 'pay table lines',
                        'db_table': 'jackpots_payline',
                        'ordering': ['pay_table', 'id'],
                        'constraints': [models.UniqueConstraint(fields=('pay_table', 'hand'), name='pay_line_unique_hand'), models.CheckConstraint(condition=models.Q(models.Q(('fixed_cents__isnull', True), ('kind', 'percent'), ('percent__gt', 0), ('percent__lte', 100)), models.Q(('fixed_cents__gt', 0), ('kind', 'fixed'), ('percent__isnull', True)), _connector='OR'), name='pay_line_percent_or_fixed')],
                    },
                ),
                        migrations.AddConstraint(
                    model_name='tableround',
                    constraint=models.UniqueConstraint(fields=('table', 'round_id'), name='table_round_unique'),
                ),
                        migrations.AddConstraint(
                    model_name='tabledeclaration',
                    constraint=models.UniqueConstraint(condition=models.Q(('state', 'pending')), fields=('level',), name='table_declaration_one_pending'),
                ),
                        migrations.AddConstraint(
                    model_name='tabledeclaration',
                    constraint=models.CheckConstraint(condition=models.Q(models.Q(('released_at__isnull', True), ('state', 'pending')), models.Q(models.Q(('state', 'pending'), _negated=True), ('released_at__isnull', False)), _connector='OR'), name='table_declaration_released_at'),
                ),
                        migrations.AddConstraint(
                    model_name='tableseat',
                    constraint=models.UniqueConstraint(fields=('round', 'seat'), name='table_seat_unique'),
                ),
                        migrations.AddConstraint(
                    model_name='prizepart',
                    constraint=models.CheckConstraint(condition=models.Q(models.Q(('state', 'paid'), _negated=True), models.Q(('paid_by__isnull', False), ('paid_by_table__isnull', True)), models.Q(('paid_by__isnull', True), ('paid_by_table__isnull', False)), _connector='OR'), name='prize_part_one_payer'),
                ),
                    ],
        ),
        migrations.RunPython(content_types_to_tables, content_types_to_jackpots),
    ]
