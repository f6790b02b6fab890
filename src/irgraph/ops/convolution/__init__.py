"""Ops of OpenVINO's 'convolution' spec category."""
