import PCMMix

print("pcm-mix-bench: not yet")
