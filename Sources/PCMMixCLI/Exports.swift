import PCMMix
