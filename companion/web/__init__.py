"""Phone and public board web app (aiohttp), served by the Pi on the table's Wi-Fi."""
