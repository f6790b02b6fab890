"""Ops of OpenVINO's 'activation' spec category."""
