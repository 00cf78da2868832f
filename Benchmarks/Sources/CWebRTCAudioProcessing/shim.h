// Deliberately empty: webrtc-audio-processing's headers are C++, which a Swift module cannot
// import. CEchoPeers includes them itself (see module.modulemap).
#pragma once
