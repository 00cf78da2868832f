import CSampleRate
import PCMMix
