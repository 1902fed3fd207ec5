"""Floor reports: coin in/out, hold, games, wins per machine, bank, room and venue; liability; charts."""
